import type { PodLike } from './allocations.js';
import type { PendingGroup, PendingGroupPod, PendingPod } from './api/cluster-pending.js';
import type { PoolSummary } from './api/cluster-summary.js';
import { largestFitOnCards } from './capacity.js';
import type { KubeContainerLike } from './ledger/read-pod.js';
import { workloadOfPod } from './ownership.js';
import { podDemandOf, podNeedsGpu } from './placement/demand.js';
// From the folder's index: where each placement type is declared is the folder's business.
import type {
  CardPolicy,
  NodeState,
  PlacementResult,
  PodDemand,
  RejectionReason,
} from './placement/index.js';
import { isTerminalPod } from './placement/node-state.js';
import { describeRejections, placePod } from './placement/place-pod.js';
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

/** What every pod of one shape shares: what it asks, and why no node takes it (or which would). */
export type PendingVerdict = Pick<
  PendingPod,
  'containers' | 'rejections' | 'message' | 'fitsNow' | 'largestFits'
>;

/** One pending pod as the grouping reads it: who it is, and the shape it asks. */
export interface PendingMember extends PendingGroupPod {
  namespace: string;
  workload: string | null;
  demand: PodDemand;
  /**
   * The demand but its key (the pod's name, which only the scheduler's assume cache reads), as
   * text: pods with the same signature get the same verdict on the same nodes.
   */
  signature: string;
  /** The group it waits in (`pendingGroupKey`). */
  groupKey: string;
}

/** 53-bit digest (cyrb53) of a shape: tells a workload's few shapes apart; not for secrets. */
function digestOf(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * A group's key: its namespace (what an operator may see is cut by it), its workload (the
 * dashboard links it) and a digest of the shape. Short enough for a cursor, stable while it waits.
 */
export function pendingGroupKey(
  namespace: string,
  workload: string | null,
  signature: string,
): string {
  return `${namespace}/${workload ?? ''}/${digestOf(signature)}`;
}

export function pendingMemberOf(pod: PendingPodLike, options: PendingOptions = {}): PendingMember {
  const demand = podDemandOf(pod, options.modelLabel ? { modelLabel: options.modelLabel } : {});
  const { key: _name, ...asked } = demand;
  const signature = JSON.stringify(asked);
  const namespace = pod.metadata?.namespace ?? 'default';
  const workload = workloadOfPod(pod)?.name ?? null;
  return {
    namespace,
    pod: pod.metadata?.name ?? '',
    workload,
    since: isoOf(pod.metadata?.creationTimestamp),
    demand,
    signature,
    groupKey: pendingGroupKey(namespace, workload, signature),
  };
}

/** The placement asked again for one shape against `states`: the scheduler's own algorithm. */
export function placePending(
  demand: PodDemand,
  states: readonly NodeState[],
  options: PendingOptions = {},
): PlacementResult {
  return placePod(demand, states, {
    ...(options.cardPolicy ? { cardPolicy: options.cardPolicy } : {}),
    ...(options.modelLabel ? { modelLabel: options.modelLabel } : {}),
  });
}

/** The verdict of `result` as the console words it, with what still fits where only room lacks. */
export function pendingVerdictOf(
  demand: PodDemand,
  result: PlacementResult,
  states: readonly NodeState[],
  pools: readonly PoolSummary[],
): PendingVerdict {
  const containers = demand.containers.map((container) => ({
    name: container.name,
    type: container.type,
    cards: container.cards,
    perCard: container.perCard,
  }));
  if (result.ok) {
    const node = states.find((state) => state.name === result.node);
    return {
      containers,
      rejections: [],
      message: '',
      largestFits: [],
      fitsNow: node ? poolOf(node) : null,
    };
  }
  const widestCards = Math.max(1, ...demand.containers.map((container) => container.cards));
  const roomGroups = new Set(
    result.rejections
      .filter((rejection) => ROOM_REASONS.has(rejection.reason))
      .map((rejection) => rejection.group),
  );
  return {
    containers,
    rejections: result.rejections,
    message: describeRejections(result),
    // Node groups are named like pools (`<model>/<policy>`), so each maps onto its summary.
    largestFits: pools
      .filter((pool) => roomGroups.has(pool.pool))
      .map((pool) => ({
        pool: pool.pool,
        largestFit: { ...pool.largestFit },
        // Worded per the pod's own card count: "per card on 2 cards", not a total over 8.
        onCards: largestFitOnCards(
          states.filter((state) => poolOf(state) === pool.pool),
          widestCards,
        ),
      })),
    fitsNow: null,
  };
}

/** Code-point order: lists sort the way their cursors compare. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Oldest first, ties by namespace/name: `cluster.pending`'s order. */
export const comparePendingPods = (
  a: { since: string; namespace: string; pod: string },
  b: { since: string; namespace: string; pod: string },
) => compareText(pendingPodCursor(a), pendingPodCursor(b));

/** The oldest-waiting group first, ties by key. */
export const comparePendingGroups = (a: PendingGroup, b: PendingGroup) =>
  compareText(pendingGroupCursor(a), pendingGroupCursor(b));

/**
 * Where a page that ends with `pod` resumes (`cluster.pending`'s `after`). `since` is ISO 8601
 * of fixed length, so the text compares as (since, namespace/name) does.
 */
export const pendingPodCursor = (pod: { since: string; namespace: string; pod: string }) =>
  `${pod.since} ${pod.namespace}/${pod.pod}`;

/** Where a page of groups that ends with `group` resumes (`cluster.pendingGroups`' cursor). */
export const pendingGroupCursor = (group: { since: string; key: string }) =>
  `${group.since} ${group.key}`;

/**
 * The index of the first item of `sorted` after `cursor` (by `cursorOf`, which sorts it), found
 * by bisection: the item the cursor was made from may have left since.
 */
export function indexAfterCursor<T>(
  sorted: readonly T[],
  cursor: string | undefined,
  cursorOf: (item: T) => string,
): number {
  if (cursor === undefined) return 0;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (cursorOf(sorted[middle] as T) <= cursor) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** One group of `members` (sorted by `comparePendingPods`, at least one) sharing `verdict`. */
export function pendingGroupOf(
  key: string,
  members: readonly PendingMember[],
  verdict: PendingVerdict,
): PendingGroup {
  const first = members[0];
  return {
    key,
    namespace: first?.namespace ?? 'default',
    workload: first?.workload ?? null,
    since: first?.since ?? isoOf(undefined),
    ...verdict,
    podCount: members.length,
    pods: members.map(({ pod, since }) => ({ pod, since })),
  };
}

/**
 * Every pending GPU pod in groups by namespace, workload and shape, the oldest-waiting group
 * first: one placement per shape, not per pod (at 10,000 nodes one placement walks every node).
 * The one-shot form of what the BFF keeps up to date change by change.
 */
export function pendingGroups(
  pods: readonly PendingPodLike[],
  states: readonly NodeState[],
  pools: readonly PoolSummary[],
  options: PendingOptions = {},
): PendingGroup[] {
  const byGroup = new Map<string, PendingMember[]>();
  for (const pod of pods) {
    if (!isPendingGpuPod(pod)) continue;
    const member = pendingMemberOf(pod, options);
    const members = byGroup.get(member.groupKey);
    if (members === undefined) byGroup.set(member.groupKey, [member]);
    else members.push(member);
  }
  const verdicts = new Map<string, PendingVerdict>();
  const groups: PendingGroup[] = [];
  for (const [key, members] of byGroup) {
    members.sort(comparePendingPods);
    const first = members[0] as PendingMember;
    let verdict = verdicts.get(first.signature);
    if (verdict === undefined) {
      const result = placePending(first.demand, states, options);
      verdict = pendingVerdictOf(first.demand, result, states, pools);
      verdicts.set(first.signature, verdict);
    }
    groups.push(pendingGroupOf(key, members, verdict));
  }
  return groups.sort(comparePendingGroups);
}

/**
 * Each pod of `groups` as `cluster.pending` lists it (spec §8), oldest first: the group's
 * verdict shared by reference, so the list costs a small object per pod.
 */
export function podsOfPendingGroups(groups: readonly PendingGroup[]): PendingPod[] {
  const pods: PendingPod[] = [];
  for (const { key: _key, podCount: _count, since: _since, pods: members, ...shared } of groups)
    for (const member of members) pods.push({ ...shared, pod: member.pod, since: member.since });
  return pods.sort(comparePendingPods);
}

/** `group` listing at most `podLimit` pods (the same object when it lists no more). */
export function pendingGroupCut(group: PendingGroup, podLimit: number): PendingGroup {
  return group.pods.length <= podLimit ? group : { ...group, pods: group.pods.slice(0, podLimit) };
}

/** Every pending GPU pod, oldest first (ties by namespace/name), one verdict per shape. */
export function pendingPods(
  pods: readonly PendingPodLike[],
  states: readonly NodeState[],
  pools: readonly PoolSummary[],
  options: PendingOptions = {},
): PendingPod[] {
  return podsOfPendingGroups(pendingGroups(pods, states, pools, options));
}

/** Pods counted under no pool: no pool's nodes suit them, whatever room there is. */
export const NO_POOL = 'none';

/**
 * Pending pods per pool (`mgpu_pending_pods{pool}`), of pods or of groups: a pod counts in every pool that lacks only
 * room for it, in the pool that would take it now if one would, and under `NO_POOL` when no
 * pool could take it at all (its own request, policy, model or card count rules every node out).
 */
export function pendingPodsPerPool(
  pending: readonly (Pick<PendingPod, 'fitsNow' | 'largestFits'> & { podCount?: number })[],
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of pending) {
    // A group counts each of its pods.
    const pods = entry.podCount ?? 1;
    const add = (pool: string) => counts.set(pool, (counts.get(pool) ?? 0) + pods);
    if (entry.fitsNow) add(entry.fitsNow);
    else if (entry.largestFits?.length) for (const fit of entry.largestFits) add(fit.pool);
    else add(NO_POOL);
  }
  return counts;
}
