import {
  type CheckResult,
  CLUSTER_AWARE_RULES,
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from '@mgpu/shared';
import type { FieldError } from '../../app/mutation-failure.js';

export type { FieldError };

/** The form's draft as the rules and the BFF take it (defaults applied), or undefined if unshaped. */
export function requestOfDraft(draft: WorkloadRequestInput): WorkloadRequest | undefined {
  const parsed = WorkloadRequestSchema.safeParse(draft);
  return parsed.success ? parsed.data : undefined;
}

/** DOM id of the input that edits a request path (`containers.0.gpu.compute`). */
export const FIELD_ID_PREFIX = 'field-';
export const fieldId = (path: string) => `${FIELD_ID_PREFIX}${path.replaceAll('.', '-')}`;
/** DOM id of the message (and fix) shown under that input. */
export const errorId = (path: string) => `${fieldId(path)}-error`;

const clusterAware = new Set<string>(CLUSTER_AWARE_RULES);

/**
 * Every error the form shows: the browser's own check, the cluster-aware rules from the last
 * preview of this very request (a stale preview says nothing), and what the server refused.
 */
export function mergeErrors(
  local: CheckResult,
  previewErrors: readonly FieldError[] | undefined,
  serverErrors: readonly FieldError[],
): FieldError[] {
  const seen = new Set<string>();
  const merged: FieldError[] = [];
  const add = (error: FieldError) => {
    const key = `${error.path}\u0000${error.rule}`;
    if (seen.has(key)) return;
    seen.add(key);
    merged.push(error);
  };
  for (const error of local.errors) add(error);
  for (const error of previewErrors ?? []) if (clusterAware.has(error.rule)) add(error);
  for (const error of serverErrors) add(error);
  return merged;
}

export function errorsByPath(errors: readonly FieldError[]): Map<string, FieldError[]> {
  const byPath = new Map<string, FieldError[]>();
  for (const error of errors) {
    const list = byPath.get(error.path);
    if (list) list.push(error);
    else byPath.set(error.path, [error]);
  }
  return byPath;
}

/** Paths the form has an input for; errors elsewhere are shown above the submit button. */
export function isFieldPath(path: string): boolean {
  return (
    ['kind', 'name', 'namespace', 'replicas', 'computePolicy'].includes(path) ||
    /^containers\.\d+\.(name|image|gpu\.(type|multiCard|compute|memoryGiB|cards|model))$/.test(path)
  );
}

/** The fields the operator has typed into, or every field once they submitted or pasted YAML. */
export type EngagedFields = ReadonlySet<string> | 'all';

/**
 * Whether a field's errors are shown yet: quiet until the operator touches it (a fresh form is not
 * a wall of red). A container's GPU fields decide each other's rules (compute makes memory
 * required), so typing into one wakes them all; the compute policy wakes with multi-card sharing.
 */
export function errorsShown(path: string, engaged: EngagedFields): boolean {
  if (engaged === 'all' || engaged.has(path)) return true;
  const gpu = /^(containers\.\d+\.gpu)\./.exec(path)?.[1];
  for (const field of engaged) {
    if (gpu !== undefined && field.startsWith(`${gpu}.`)) return true;
    if (path === 'computePolicy' && /^containers\.\d+\.gpu\.multiCard$/.test(field)) return true;
  }
  return false;
}

/**
 * Whether one error is shown yet: its own field was touched, or a field one of its fixes changes
 * (a quota error sits on the GPU fields, but fewer replicas fixes it too: touching the replica
 * count alone must show it and its fix button).
 */
export function errorShown(error: FieldError, engaged: EngagedFields): boolean {
  if (errorsShown(error.path, engaged)) return true;
  return (error.fixes ?? []).some((fix) =>
    fix.changes.some((change) => errorsShown(change.path, engaged)),
  );
}
