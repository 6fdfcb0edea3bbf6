/**
 * A workload's state, the one definition (spec §9 "Verdicts and states"): the list, the result
 * page and the API all show this, so a workload never reads "Failed" in one place and "Running"
 * in another. Only a real failure is `failed` (an image that does not pull, a crash loop, a Job's
 * Failed condition, a new workload Kubernetes refuses to give any pod); pods that merely wait for a node are `pending`, and a rolling update whose
 * new pods cannot progress while old ones still run is `stalled`, with the reason `readRollout`
 * found.
 */
import { unschedulableCondition } from './pod-status.js';
import { ROLLOUT_STALLS, type RolloutWorkload, readRollout } from './rollout.js';
import { DEPLOYMENT_REVISION_ANNOTATION } from './workload-revisions.js';

export const WORKLOAD_STATES = [
  'pending',
  'rolling-out',
  'stalled',
  'running',
  'failed',
  'complete',
] as const;
export type WorkloadStateName = (typeof WORKLOAD_STATES)[number];

/** Why a workload is stalled (`ROLLOUT_STALLS`), failed, or pending (`unschedulable`). */
export const WORKLOAD_STATE_REASONS = [
  ...ROLLOUT_STALLS,
  'image-pull',
  'crash-loop',
  'job-failed',
] as const;
export type WorkloadStateReason = (typeof WORKLOAD_STATE_REASONS)[number];

export interface WorkloadState {
  state: WorkloadStateName;
  reason: WorkloadStateReason | null;
  /** Kubernetes' own (English) words for the reason, when it gave some. */
  message: string | null;
  /** The pod the reason was read from, when it is one pod's. */
  pod: string | null;
}

/** Waiting reasons of a container whose image will not come without a change. */
const IMAGE_PULL_REASONS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName']);
const CRASH_LOOP_REASON = 'CrashLoopBackOff';

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

interface ContainerStatus {
  name?: string;
  state?: { waiting?: { reason?: string; message?: string } } | undefined;
}

export interface StatePod {
  metadata?: {
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: unknown;
  };
  spec?: { nodeName?: string } | undefined;
  status?:
    | {
        phase?: string;
        conditions?: readonly Condition[];
        containerStatuses?: readonly ContainerStatus[];
        initContainerStatuses?: readonly ContainerStatus[];
      }
    | undefined;
}

/** The workload fields the state reads: those of its rollout. */
export type StateWorkload = RolloutWorkload;

const nameOf = (pod: StatePod) => pod.metadata?.name ?? '';

/** The first container of `pods` stuck on a real failure: an image pull, then a crash loop. */
function podFailure(pods: readonly StatePod[]): WorkloadState | undefined {
  for (const [reasons, reason] of [
    [IMAGE_PULL_REASONS, 'image-pull'],
    [new Set([CRASH_LOOP_REASON]), 'crash-loop'],
  ] as const) {
    for (const pod of pods) {
      const statuses = [
        ...(pod.status?.initContainerStatuses ?? []),
        ...(pod.status?.containerStatuses ?? []),
      ];
      const waiting = statuses.find((status) => reasons.has(status.state?.waiting?.reason ?? ''))
        ?.state?.waiting;
      if (waiting)
        return {
          state: 'failed',
          reason,
          message: waiting.message ?? waiting.reason ?? null,
          pod: nameOf(pod),
        };
    }
  }
  return undefined;
}

/** A pod no node holds yet; the scheduler's PodScheduled=False condition says why, if it said. */
const waitsForNode = (pod: StatePod) => !pod.spec?.nodeName && pod.status?.phase !== 'Succeeded';

const schedulerSaid = unschedulableCondition;

/** Pending: some pods wait for a node (and, if the scheduler said why, that reason). */
function pendingOf(waiting: readonly StatePod[]): WorkloadState {
  const refused = waiting.find((pod) => schedulerSaid(pod) !== undefined);
  return refused
    ? {
        state: 'pending',
        reason: 'unschedulable',
        message: schedulerSaid(refused)?.message ?? null,
        pod: nameOf(refused),
      }
    : {
        state: 'pending',
        reason: null,
        message: null,
        pod: waiting[0] ? nameOf(waiting[0]) : null,
      };
}

const plain = (state: WorkloadStateName): WorkloadState => ({
  state,
  reason: null,
  message: null,
  pod: null,
});

function jobState(workload: StateWorkload, pods: readonly StatePod[]): WorkloadState {
  const conditions = workload.status?.conditions ?? [];
  const failedCondition = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failedCondition)
    return {
      state: 'failed',
      reason: 'job-failed',
      message: failedCondition.message ?? failedCondition.reason ?? null,
      pod: null,
    };
  if (conditions.some((c) => c.type === 'Complete' && c.status === 'True'))
    return plain('complete');
  const failure = podFailure(pods);
  if (failure) return failure;
  const live = pods.filter((pod) => pod.status?.phase !== 'Succeeded');
  const waiting = live.filter(waitsForNode);
  if (waiting.length > 0 || live.length === 0) return pendingOf(waiting);
  return plain('running');
}

/**
 * The state of a Deployment, StatefulSet or Job over its current pods (those being deleted are
 * not counted). `quotaRefusesNewPod` and `modelLabel` are passed on to `readRollout`.
 */
export function workloadState(
  workload: StateWorkload,
  allPods: readonly StatePod[],
  options: { modelLabel?: string; quotaRefusesNewPod?: boolean } = {},
): WorkloadState {
  const pods = allPods.filter((pod) => !pod.metadata?.deletionTimestamp);
  if (workload.kind === 'Job') return jobState(workload, pods);
  const failure = podFailure(pods);
  if (failure) return failure;
  const rollout = readRollout(workload, pods, options);
  if (rollout === undefined) return plain('running');
  if (rollout.state === 'complete') return plain('running');
  const oldPodsRun = rollout.oldPods.length > 0;
  // Only an old pod a node took holds cards: when none did, a new pod that fits no node is not
  // kept out by the old ones (nor would a rollback help): the workload merely waits.
  const oldNames = new Set(rollout.oldPods);
  const oldPodsHoldCards = pods.some((pod) => oldNames.has(nameOf(pod)) && !!pod.spec?.nodeName);
  // A StatefulSet's edit deletes an old pod before its new one is made, so a stuck edit may have
  // no old pod left running; its revisions still differ until every pod is updated.
  const status = workload.status;
  const revisionsDiffer =
    workload.kind === 'StatefulSet' &&
    status?.updateRevision !== undefined &&
    status.currentRevision !== undefined &&
    status.updateRevision !== status.currentRevision;
  const generationAhead =
    workload.metadata?.generation !== undefined &&
    status?.observedGeneration !== undefined &&
    status.observedGeneration < workload.metadata.generation;
  // A workload Kubernetes refuses to give any pod, never edited (its first revision): nothing runs,
  // nothing to roll back to, and it will not start until someone changes it: failed. Once pods
  // run, or after an edit (a Recreate edit leaves no old pod), the refused pods stall it.
  const revision = Number(workload.metadata?.annotations?.[DEPLOYMENT_REVISION_ANNOTATION] ?? 1);
  const neverEdited = revision <= 1 && !revisionsDiffer && !generationAhead;
  if (rollout.stall === 'create-refused' && pods.length === 0 && neverEdited)
    return { state: 'failed', reason: 'create-refused', message: rollout.message, pod: null };
  // A new pod that fits no node while old ones still hold their cards: the edit is stuck.
  // Without old pods (and no edit under way) the same pods merely wait for a node: pending.
  if (rollout.stall === 'unschedulable' && !oldPodsHoldCards && !revisionsDiffer)
    return pendingOf(pods.filter(waitsForNode));
  if (rollout.state === 'stalled')
    return {
      state: 'stalled',
      reason: rollout.stall,
      message: rollout.message,
      pod:
        rollout.stall === 'unschedulable'
          ? (pods.find(schedulerSaid)?.metadata?.name ?? null)
          : null,
    };
  // Rolling out only while a template change is under way: old pods remain, or the controller
  // has not yet seen the latest spec. A new pod merely not ready (a scale-up, a readiness probe)
  // is running, or pending while it waits for a node.
  if (oldPodsRun || revisionsDiffer || generationAhead) return plain('rolling-out');
  const waiting = pods.filter(waitsForNode);
  return waiting.length > 0 ? pendingOf(waiting) : plain('running');
}
