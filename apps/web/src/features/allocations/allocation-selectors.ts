import {
  type AllocationRecord,
  bookOnCard,
  type CardState,
  emptyCard,
  type NodeLayout,
  type NodeState,
  nodeStateOf,
  type PoolSummary,
  strandedOnCard,
  WHOLE_CARD_CLAIM,
} from '@mgpu/shared';
import { type AllocationState, sortKey } from './allocation-events.js';
import {
  type DashboardFilters,
  matchesSearch,
  matchesWords,
  searchText,
  searchWords,
} from './dashboard-filters.js';

/** One card as the dashboard draws it: usage from the live records, holders sorted by name. */
export interface LiveCard extends CardState {
  stranded: { computePercent: number; memoryMiB: number };
  holders: AllocationRecord[];
}

export interface LiveNode {
  layout: NodeLayout;
  state: NodeState;
  cards: LiveCard[];
  /** This node's mGPU cards per usage bucket (empty counts for whole-card nodes). */
  buckets: UtilisationBuckets;
}

export interface FilterOptions {
  models: string[];
  policies: string[];
  namespaces: string[];
  workloads: string[];
  nodes: string[];
}

/** Cards per compute-usage bucket, for the utilisation chart. */
export interface UtilisationBuckets {
  compute: number[];
  memory: number[];
}

/** Bucket bounds (percent used, upper bound inclusive): idle, ≤25, ≤50, ≤75, <100, full. */
export const UTILISATION_BUCKETS = ['0', '1-25', '26-50', '51-75', '76-99', '100'] as const;

const bucketOf = (ratio: number): number => {
  if (ratio <= 0) return 0;
  if (ratio >= 1) return 5;
  return Math.min(4, Math.ceil(ratio * 4));
};

export const emptyBuckets = (): UtilisationBuckets => ({
  compute: UTILISATION_BUCKETS.map(() => 0),
  memory: UTILISATION_BUCKETS.map(() => 0),
});

/** Adds (or with -1 takes away) `part`'s counts to `total`, in place. */
export const addBuckets = (
  total: UtilisationBuckets,
  part: UtilisationBuckets,
  sign: 1 | -1,
): void => {
  for (let index = 0; index < UTILISATION_BUCKETS.length; index++) {
    total.compute[index] = (total.compute[index] ?? 0) + sign * (part.compute[index] ?? 0);
    total.memory[index] = (total.memory[index] ?? 0) + sign * (part.memory[index] ?? 0);
  }
};

/** The policy the filters name a node by: its mGPU policy, or `nvidia` for whole cards. */
const policyOf = (layout: NodeLayout | undefined) =>
  layout?.resourceType === 'nvidia' ? 'nvidia' : layout?.policy;

/** Nodes the model and policy filters treat alike: model × policy, or model × whole cards. */
export const groupOf = (layout: NodeLayout): string =>
  `${layout.model ?? ''}\u0000${policyOf(layout)}`;

/**
 * A node as the dashboard draws it, from its shape and its records: card usage booked by the
 * ledger as the scheduler books it (spec §5), stranded capacity, and usage buckets.
 */
export function buildLiveNode(
  layout: NodeLayout,
  records: readonly AllocationRecord[] = [],
): LiveNode {
  const perCard = layout.memoryMiBPerCard;
  const cards: LiveCard[] = layout.cards.map((card) => {
    const live: LiveCard = {
      ...emptyCard(card.index),
      stranded: { computePercent: 0, memoryMiB: 0 },
      holders: [],
    };
    // Whole nvidia cards are not mGPU instances: they come from the layout, not the stream.
    if (card.wholeNvidia) bookOnCard(live, WHOLE_CARD_CLAIM, perCard);
    return live;
  });
  for (const record of records) {
    const card = cards[record.card];
    if (card === undefined || card.wholeNvidia) continue;
    bookOnCard(card, { type: 'mgpu', perCard: record.requested }, perCard);
    card.holders.push(record);
  }
  const state = nodeStateOf({
    name: layout.name,
    labels: {},
    resourceType: layout.resourceType ?? undefined,
    policy: layout.policy,
    model: layout.model ?? undefined,
    schedulable: layout.schedulable,
    memoryMiBPerCard: perCard,
    cards,
    pods: 0,
    maxPods: 0,
    group: layout.pool,
  });
  const buckets = emptyBuckets();
  for (const card of cards) {
    card.stranded = strandedOnCard(state, card);
    card.holders.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
    if (layout.resourceType !== 'mgpu') continue;
    const compute = bucketOf(card.usedCompute / 100);
    const memory = bucketOf(perCard > 0 ? card.usedMemoryMiB / perCard : 0);
    buckets.compute[compute] = (buckets.compute[compute] ?? 0) + 1;
    buckets.memory[memory] = (buckets.memory[memory] ?? 0) + 1;
  }
  return { layout, state, cards, buckets };
}

/** The pools the filters' model and policy keep (all of them, the same array, without either). */
export const filterPools = (
  pools: PoolSummary[],
  filters: Pick<DashboardFilters, 'model' | 'policy'>,
): PoolSummary[] =>
  filters.model || filters.policy
    ? pools.filter(
        (pool) =>
          (!filters.model || pool.model === filters.model) &&
          (!filters.policy || pool.policy === filters.policy),
      )
    : pools;

const nodeMatches = (layout: NodeLayout | undefined, filters: DashboardFilters): boolean =>
  (!filters.model || layout?.model === filters.model) &&
  (!filters.policy || policyOf(layout) === filters.policy);

/** A record's lower-cased search text; records are replaced, never changed, when they change. */
const searchTexts = new WeakMap<AllocationRecord, string>();

/** Searched on every batch while a search is set: 30,000+ records, so made once per record. */
function searchTextOf(record: AllocationRecord): string {
  let text = searchTexts.get(record);
  if (text === undefined) {
    text = searchText([
      record.namespace,
      record.pod,
      record.container,
      record.node,
      record.workload ?? '',
    ]);
    searchTexts.set(record, text);
  }
  return text;
}

/** The mGPU instances every filter keeps, by namespace, pod, container and card (a new array). */
export function selectInstances(
  state: AllocationState,
  filters: DashboardFilters,
): AllocationRecord[] {
  if (!Object.values(filters).some(Boolean)) return state.sorted.toArray();
  const words = searchWords(filters.search);
  return state.sorted.filter(
    (record) =>
      (!filters.namespace || record.namespace === filters.namespace) &&
      (!filters.workload || record.workload === filters.workload) &&
      (!filters.node || record.node === filters.node) &&
      nodeMatches(state.layout.get(record.node), filters) &&
      (words.length === 0 || matchesWords(words, searchTextOf(record))),
  );
}

/**
 * The GPU nodes the filters keep: model, policy and node on the node itself; namespace, workload
 * and search keep the nodes that hold one of `instances()` (or whose name matches the search).
 */
export function filterNodes(
  nodes: LiveNode[],
  filters: DashboardFilters,
  instances: () => readonly AllocationRecord[],
): LiveNode[] {
  if (!Object.values(filters).some(Boolean)) return nodes;
  const byInstance = Boolean(filters.namespace || filters.workload || filters.search);
  const holding = byInstance ? new Set(instances().map((record) => record.node)) : undefined;
  return nodes.filter(
    (node) =>
      nodeMatches(node.layout, filters) &&
      (!filters.node || node.layout.name === filters.node) &&
      (holding === undefined ||
        holding.has(node.layout.name) ||
        (!filters.namespace &&
          !filters.workload &&
          matchesSearch(filters.search, [node.layout.name, node.layout.pool]))),
  );
}

/** Whether the utilisation chart must add up the kept nodes rather than the per-group sums. */
export const filtersNodesByName = (filters: DashboardFilters): boolean =>
  Boolean(filters.node || filters.namespace || filters.workload || filters.search);

/** The nodes' usage buckets added up (each node counted its cards when it was built). */
export function sumNodeBuckets(nodes: readonly LiveNode[]): UtilisationBuckets {
  const total = emptyBuckets();
  for (const node of nodes) addBuckets(total, node.buckets, 1);
  return total;
}

/** The per-group sums (see `groupOf`) of the groups the filters' model and policy keep. */
export function sumGroupBuckets(
  groups: ReadonlyMap<string, UtilisationBuckets>,
  filters: Pick<DashboardFilters, 'model' | 'policy'>,
): UtilisationBuckets {
  const total = emptyBuckets();
  for (const [group, buckets] of groups) {
    const [model, policy] = group.split('\u0000');
    if (filters.model && model !== filters.model) continue;
    if (filters.policy && policy !== filters.policy) continue;
    addBuckets(total, buckets, 1);
  }
  return total;
}

/** The last result of `select`, made again only when an argument is another object. */
function memoizeLast<A extends readonly unknown[], R>(select: (...args: A) => R) {
  let last: { args: A; result: R } | undefined;
  return (...args: A): R => {
    if (last?.args.every((arg, index) => arg === args[index])) return last.result;
    const result = select(...args);
    last = { args, result };
    return result;
  };
}

/**
 * A selector of the choices the filter boxes offer, from what the cluster has now: the same
 * object until a model, policy, namespace, workload or node appears or goes (a store snapshot).
 */
export function createFilterOptionsSelector(): (state: AllocationState) => FilterOptions {
  const layoutChoices = memoizeLast((layout: AllocationState['layout']) => {
    const models = new Set<string>();
    const policies = new Set<string>();
    for (const node of layout.values()) {
      if (node.model) models.add(node.model);
      policies.add(policyOf(node) ?? node.policy);
    }
    return { models: [...models].sort(), policies: [...policies].sort() };
  });
  const options = memoizeLast(
    (
      choices: ReturnType<typeof layoutChoices>,
      namespaces: readonly string[],
      workloads: readonly string[],
      nodes: readonly string[],
    ): FilterOptions => ({
      ...choices,
      namespaces: [...namespaces],
      workloads: [...workloads],
      nodes: [...nodes],
    }),
  );
  return (state) =>
    options(
      layoutChoices(state.layout),
      state.namespaces.names,
      state.workloads.names,
      state.nodeNames,
    );
}
