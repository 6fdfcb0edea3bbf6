import type { PodLike } from './allocations.js';
import type { PendingPod, PoolSummary } from './api.js';
import type { KubeContainerLike } from './ledger/read-pod.js';
import { workloadOfPod } from './ownership.js';
import { podDemandOf, podNeedsGpu } from './placement/demand.js';
import { isTerminalPod } from './placement/node-state.js';
import { describeRejections, placePod } from './placement/place-pod.js';
import type { CardPolicy, NodeState, PlacementResult, RejectionReason } from './placement/types.js';
import { poolOf } from './pools.js';

/** The parts of a Pod `cluster.pending` reads (a V1Pod fits). */
export interface PendingPodLike extends PodLike {
  metadata?: PodLike['metadata'] & {
    creationTimestamp?: Date | string;
    deletionTimestamp?: Date | string;
  };
  spec?: { nodeName?: string; containers?: KubeContainerLike[] };
}

/**
 * Reasons that say a node group lacks only room now (its type, policy, model and card count
 * suit the pod): only for those is "the largest request that fits there" an answer.
 */
export const ROOM_REASONS: ReadonlySet<RejectionReason> = new Set([
  'compute',
  'memory',
  'instance-limit',
  'idle-cards',
  'fragmented',
]);

/** A GPU pod (mGPU or whole cards) that no node holds yet and that is not going away. */
export function isPendingGpuPod(pod: PendingPodLike): boolean {
  return (
    !pod.spec?.nodeName &&
    !pod.metadata?.deletionTimestamp &&
    !isTerminalPod(pod) &&
    podNeedsGpu(pod)
  );
}

export interface PendingOptions {
  cardPolicy?: CardPolicy;
  modelLabel?: string;
}

const isoOf = (time: Date | string | undefined) =>
  time === undefined ? new Date(0).toISOString() : new Date(time).toISOString();

/**
 * One pending pod with the placement asked again against `states`: the scheduler's own
 * algorithm, so the verdict is the one it reaches.
 */
export function pendingPodOf(
  pod: PendingPodLike,
  states: readonly NodeState[],
  pools: readonly PoolSummary[],
  options: PendingOptions = {},
  verdicts?: Map<string, PlacementResult>,
): PendingPod {
  const demand = podDemandOf(pod, options.modelLabel ? { modelLabel: options.modelLabel } : {});
  // The placement reads everything of the demand but its key (the pod's name, which only the
  // scheduler's assume cache uses): pods asking the same get the same verdict on the same nodes.
  const { key: _name, ...asked } = demand;
  const signature = verdicts ? JSON.stringify(asked) : '';
  let result = verdicts?.get(signature);
  if (result === undefined) {
    result = placePod(demand, states, {
      ...(options.cardPolicy ? { cardPolicy: options.cardPolicy } : {}),
      ...(options.modelLabel ? { modelLabel: options.modelLabel } : {}),
    });
    verdicts?.set(signature, result);
  }
  const base = {
    namespace: pod.metadata?.namespace ?? 'default',
    pod: pod.metadata?.name ?? '',
    workload: workloadOfPod(pod)?.name ?? null,
    since: isoOf(pod.metadata?.creationTimestamp),
    containers: demand.containers.map((container) => ({
      name: container.name,
      type: container.type,
      cards: container.cards,
      perCard: container.perCard,
    })),
  };
  if (result.ok) {
    const node = states.find((state) => state.name === result.node);
    return {
      ...base,
      rejections: [],
      message: '',
      largestFits: [],
      fitsNow: node ? poolOf(node) : null,
    };
  }
  const roomGroups = new Set(
    result.rejections
      .filter((rejection) => ROOM_REASONS.has(rejection.reason))
      .map((rejection) => rejection.group),
  );
  return {
    ...base,
    rejections: result.rejections,
    message: describeRejections(result),
    // Node groups are named like pools (`<model>/<policy>`), so each maps onto its summary.
    largestFits: pools
      .filter((pool) => roomGroups.has(pool.pool))
      .map((pool) => ({ pool: pool.pool, largestFit: { ...pool.largestFit } })),
    fitsNow: null,
  };
}

/**
 * Every pending GPU pod, oldest first (ties by namespace/name). A workload's waiting replicas
 * ask the same: each verdict is reached once per request shape, not once per pod (at 10,000
 * nodes one placement walks every node).
 */
export function pendingPods(
  pods: readonly PendingPodLike[],
  states: readonly NodeState[],
  pools: readonly PoolSummary[],
  options: PendingOptions = {},
): PendingPod[] {
  const verdicts = new Map<string, PlacementResult>();
  return pods
    .filter(isPendingGpuPod)
    .map((pod) => pendingPodOf(pod, states, pools, options, verdicts))
    .sort(
      (a, b) =>
        a.since.localeCompare(b.since) ||
        `${a.namespace}/${a.pod}`.localeCompare(`${b.namespace}/${b.pod}`),
    );
}

/** Pods counted under no pool: no pool's nodes suit them, whatever room there is. */
export const NO_POOL = 'none';

/**
 * Pending pods per pool (`mgpu_pending_pods{pool}`): a pod counts in every pool that lacks only
 * room for it, in the pool that would take it now if one would, and under `NO_POOL` when no
 * pool could take it at all (its own request, policy, model or card count rules every node out).
 */
export function pendingPodsPerPool(pending: readonly PendingPod[]): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (pool: string) => counts.set(pool, (counts.get(pool) ?? 0) + 1);
  for (const pod of pending) {
    if (pod.fitsNow) add(pod.fitsNow);
    else if (pod.largestFits?.length) for (const fit of pod.largestFits) add(fit.pool);
    else add(NO_POOL);
  }
  return counts;
}
