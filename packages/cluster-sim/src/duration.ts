/** Milliseconds per unit of a Go duration, as kube-apiserver's flags take them. */
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;

/**
 * A positive Go duration ("1h", "90s", "1h30m", "1.5s", "500ms", kube-apiserver's own "1h0m0s")
 * in milliseconds, or undefined for anything else (a bare number has no unit, so it is refused).
 */
export function parseDuration(text: string): number | undefined {
  // `ms` before `m`, so "500ms" is not read as 500 minutes followed by junk.
  const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const match = part.exec(text);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
    at = part.lastIndex;
  }
  return at > 0 && total > 0 ? total : undefined;
}
