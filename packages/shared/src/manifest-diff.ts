/**
 * The edit form's YAML diff (issue 17): two manifests written as YAML the way `mgpu manifest`
 * prints them, compared line by line with jsdiff (`diff`), so the operator reads exactly what
 * `workload.update` will change before applying it.
 */
import { diffLines } from 'diff';
import { stringify } from 'yaml';

/** One run of lines: the same on both sides, only in the live object, or only in the edit. */
export interface ManifestDiffLine {
  change: 'same' | 'removed' | 'added';
  text: string;
}

/**
 * A manifest as YAML, as `mgpu manifest` prints it: no anchors or aliases for repeated objects
 * (the same labels in metadata and selector), which kubectl users would not expect.
 */
export const manifestYaml = (manifest: unknown): string =>
  stringify(manifest, { aliasDuplicateObjects: false });

/**
 * Key order that carries no meaning made the same on both sides: a map of strings (labels,
 * annotations, selectors, resource quantities) in key order, as kube-apiserver writes Go maps —
 * the console's edit keeps its own order, so without this an unchanged object showed a diff.
 */
function canonicalOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalOrder);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const isStringMap = entries.every(
    ([, entry]) => typeof entry === 'string' || typeof entry === 'number',
  );
  const ordered = isStringMap
    ? [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    : entries;
  return Object.fromEntries(ordered.map(([key, entry]) => [key, canonicalOrder(entry)]));
}

/** The line-by-line diff of two manifests' YAML; no `removed`/`added` line when they agree. */
export function manifestDiff(live: unknown, edited: unknown): ManifestDiffLine[] {
  return diffLines(
    manifestYaml(canonicalOrder(live)),
    manifestYaml(canonicalOrder(edited)),
  ).flatMap((part) =>
    part.value
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({
        change: part.added
          ? ('added' as const)
          : part.removed
            ? ('removed' as const)
            : ('same' as const),
        text,
      })),
  );
}
