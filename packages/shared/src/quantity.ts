/** Reads a plain Kubernetes quantity as a number ("46068", "110", "8Gi", "1k"); NaN when unreadable. */
export function parseQuantity(value: string | undefined): number {
  if (value === undefined) return Number.NaN;
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(Ki|Mi|Gi|Ti|k|M|G|T|m)?\s*$/.exec(value);
  if (!match?.[1]) return Number.NaN;
  const scale: Record<string, number> = {
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    m: 1e-3,
  };
  return Number(match[1]) * (match[2] ? (scale[match[2]] ?? 1) : 1);
}
