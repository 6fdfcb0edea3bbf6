/**
 * The revisions Kubernetes keeps of a workload, read back into the form's fields (spec §9
 * `workload.history`): a Deployment's ReplicaSets, numbered by `deployment.kubernetes.io/revision`,
 * and a StatefulSet's ControllerRevisions, whose `data` is the pod template as a replacing patch.
 * A Job keeps none.
 */
import type { WorkloadRevision } from './api/workload-history.js';
import { readWorkloadObject } from './read-workload.js';
import { diffRequests } from './workload-update.js';

/** The Deployment controller's annotation with a ReplicaSet's revision number. */
export const DEPLOYMENT_REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

type Json = Record<string, unknown>;

interface RevisionWorkload {
  kind: 'Deployment' | 'StatefulSet' | 'Job';
  metadata?: { uid?: string } | undefined;
  spec?: object | undefined;
}

/** A ReplicaSet or a ControllerRevision, as the API server lists it. */
export interface RevisionObject {
  metadata?:
    | {
        creationTimestamp?: Date | string | undefined;
        annotations?: Record<string, string> | undefined;
        ownerReferences?: readonly { uid?: string; controller?: boolean }[] | undefined;
      }
    | undefined;
  spec?: { template?: unknown } | undefined;
  data?: unknown;
  revision?: number | undefined;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A revision's number and pod template, or undefined when the object is not one of `kind`'s. */
function revisionOf(kind: string, object: RevisionObject): [number, unknown] | undefined {
  if (kind === 'Deployment') {
    const text = object.metadata?.annotations?.[DEPLOYMENT_REVISION_ANNOTATION];
    const revision = Number(text);
    return text !== undefined && Number.isInteger(revision)
      ? [revision, object.spec?.template]
      : undefined;
  }
  const spec = isObject(object.data) && isObject(object.data.spec) ? object.data.spec : {};
  if (!isObject(spec.template) || object.revision === undefined) return undefined;
  // `$patch: replace` is the patch's directive, not part of the template.
  const { $patch: _directive, ...template } = spec.template;
  return [Number(object.revision), template];
}

const timestampOf = (value: Date | string | undefined): string | null =>
  value === undefined ? null : value instanceof Date ? value.toISOString() : value;

/**
 * The revisions among `objects` the workload controls (its ReplicaSets or ControllerRevisions),
 * newest first, each pod template read as the edit form reads the workload (`readWorkloadObject`
 * on the workload with that template: name, namespace and replicas stay the live ones — a
 * rollback restores the template only, as `kubectl rollout undo` does). `current` is the newest
 * revision whose form fields are the workload's own.
 */
export function workloadRevisions(
  workload: RevisionWorkload,
  objects: readonly RevisionObject[],
  options: { modelLabel?: string } = {},
): WorkloadRevision[] {
  if (workload.kind !== 'Deployment' && workload.kind !== 'StatefulSet') return [];
  const uid = workload.metadata?.uid;
  const live = readWorkloadObject(workload, options)?.request;
  const revisions = objects.flatMap((object) => {
    const owned = object.metadata?.ownerReferences?.some(
      (reference) => reference.controller && reference.uid === uid,
    );
    const found = owned ? revisionOf(workload.kind, object) : undefined;
    if (found === undefined) return [];
    const [revision, template] = found;
    const read = readWorkloadObject({ ...workload, spec: { ...workload.spec, template } }, options);
    if (read === undefined) return [];
    const createdAt = timestampOf(object.metadata?.creationTimestamp);
    const request = { ...read.request, kind: workload.kind };
    return [{ revision, createdAt, request, current: false }];
  });
  revisions.sort((a, b) => b.revision - a.revision);
  const current = live && revisions.find((each) => diffRequests(each.request, live).length === 0);
  if (current) current.current = true;
  return revisions;
}
