/**
 * A workload's rolling update as the result view shows it (issue 17 item 5): which of its pods
 * run the current template (a Deployment's new ReplicaSet, a StatefulSet's update revision) and
 * which the old one, the ready / updated / available counts, and whether the rollout completed,
 * is under way or stalled — and why: the progress deadline passed, the quota refused the new
 * pods, Kubernetes refused to create them for another reason (an admission policy, a limit range:
 * `ReplicaFailure` with `FailedCreate`; a blocked delete is not a refusal), or a new pod fits on no
 * node.
 */
import { isPodReady as isReady, unschedulableCondition as unschedulable } from './pod-status.js';
import { managedFieldsOf } from './workload-update.js';

type Json = Record<string, unknown>;

/** The StatefulSet controller's label with a pod's revision. */
export const CONTROLLER_REVISION_LABEL = 'controller-revision-hash';

export const ROLLOUT_STALLS = [
  'progress-deadline',
  'quota-refused',
  'create-refused',
  'unschedulable',
] as const;
export type RolloutStall = (typeof ROLLOUT_STALLS)[number];

export interface WorkloadRollout {
  /** Pods of the current template / of an older one (not counting those on their way out). */
  newPods: string[];
  oldPods: string[];
  desired: number;
  updated: number;
  ready: number;
  available: number;
  state: 'complete' | 'progressing' | 'stalled';
  stall: RolloutStall | null;
  /** The condition's or the scheduler's own words for a stall (English, as the API has it). */
  message: string | null;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** The workload fields the rollout and the workload's state read. */
export interface RolloutWorkload {
  kind: string;
  metadata?: { generation?: number; annotations?: Record<string, string> } | undefined;
  spec?: { replicas?: number; template?: unknown } | undefined;
  status?:
    | {
        observedGeneration?: number;
        replicas?: number;
        updatedReplicas?: number;
        readyReplicas?: number;
        availableReplicas?: number;
        updateRevision?: string;
        /** A StatefulSet's revision of the pods not yet updated. */
        currentRevision?: string;
        conditions?: readonly Condition[];
      }
    | undefined;
}

interface RolloutPod {
  metadata?: {
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: unknown;
  status?: { phase?: string; conditions?: readonly Condition[] } | undefined;
}

/**
 * The pod template's form fields as one comparable text. GPU requests must equal limits, and
 * the API server fills a pod's requests from its limits, so only the limits are compared
 * where both could be written.
 */
function templateKey(object: Json, modelLabel: string | undefined): string {
  const template = (managedFieldsOf(object, modelLabel ? { modelLabel } : {}).spec as Json)
    .template as {
    spec: { containers: { resources?: { limits?: unknown; requests?: unknown } }[] };
  };
  for (const container of template.spec.containers)
    if (container.resources?.limits !== undefined) delete container.resources.requests;
  return JSON.stringify(template);
}

/**
 * Whether a pod runs the workload's current template, as far as the form's fields go: the
 * console's edits change only those (`managedFieldsOf`), so a pod whose containers, GPU
 * resources, mGPU annotations and model pin equal the template's is of the new revision.
 */
function runsTemplate(pod: RolloutPod, templateFields: string, modelLabel: string | undefined) {
  const asTemplate = { spec: { template: { metadata: pod.metadata, spec: pod.spec } } };
  return templateKey(asTemplate as unknown as Json, modelLabel) === templateFields;
}

/**
 * The rollout of a Deployment or StatefulSet over its current pods. A StatefulSet names its
 * update revision; a Deployment's new pods are those whose form fields match its template.
 * `quotaRefusesNewPod`: the caller's quota check (`podQuotaUsage` against the namespace's
 * quotas) says one more pod of the template would be refused, as the API server would.
 */
export function readRollout(
  workload: RolloutWorkload,
  pods: readonly RolloutPod[],
  options: { modelLabel?: string; quotaRefusesNewPod?: boolean } = {},
): WorkloadRollout | undefined {
  if (workload.kind !== 'Deployment' && workload.kind !== 'StatefulSet') return undefined;
  const desired = workload.spec?.replicas ?? 1;
  const templateFields = templateKey(workload as unknown as Json, options.modelLabel);
  const revision = workload.status?.updateRevision;
  const isNew = (pod: RolloutPod) =>
    workload.kind === 'StatefulSet' && revision
      ? pod.metadata?.labels?.[CONTROLLER_REVISION_LABEL] === revision
      : runsTemplate(pod, templateFields, options.modelLabel);
  const fresh = pods.filter(isNew);
  const stale = pods.filter((pod) => !isNew(pod));
  const ready = pods.filter(isReady).length;
  const updated = fresh.length;
  const available = workload.status?.availableReplicas ?? fresh.filter(isReady).length;
  const conditions = workload.status?.conditions ?? [];
  const deadline = conditions.find(
    (c) =>
      c.type === 'Progressing' && c.status === 'False' && c.reason === 'ProgressDeadlineExceeded',
  );
  const failure = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const stuck = fresh.map(unschedulable).find((condition) => condition !== undefined);
  const complete =
    stale.length === 0 && updated === desired && fresh.filter(isReady).length === desired;
  const quotaRefused =
    (failure?.message ?? '').includes('exceeded quota') ||
    (!complete && updated < desired && options.quotaRefusesNewPod === true);
  const stall: RolloutStall | null = complete
    ? null
    : quotaRefused
      ? 'quota-refused'
      : failure?.reason === 'FailedCreate'
        ? 'create-refused'
        : stuck
          ? 'unschedulable'
          : deadline
            ? 'progress-deadline'
            : null;
  const message =
    stall === 'quota-refused' || stall === 'create-refused'
      ? (failure?.message ?? null)
      : stall === 'unschedulable'
        ? (stuck?.message ?? null)
        : stall === 'progress-deadline'
          ? (deadline?.message ?? null)
          : null;
  const names = (list: readonly RolloutPod[]) => list.map((pod) => pod.metadata?.name ?? '');
  return {
    newPods: names(fresh),
    oldPods: names(stale),
    desired,
    updated,
    ready,
    available,
    state: complete ? 'complete' : stall ? 'stalled' : 'progressing',
    stall,
    message,
  };
}
