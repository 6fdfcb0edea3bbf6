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

/** The line-by-line diff of two manifests' YAML; no `removed`/`added` line when they agree. */
export function manifestDiff(live: unknown, edited: unknown): ManifestDiffLine[] {
  return diffLines(manifestYaml(live), manifestYaml(edited)).flatMap((part) =>
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
