import {
  type AllocationEvent,
  type AllocationRecord,
  bookOnCard,
  type CardState,
  emptyCard,
  mergePoolSummaries,
  type NodeLayout,
  type NodeState,
  nodePoolSummary,
  nodeStateOf,
  type PoolSummary,
  SnapshotAssembly,
  strandedOnCard,
  WHOLE_CARD_CLAIM,
} from '@mgpu/shared';
import {
  type DashboardFilters,
  matchesSearch,
  matchesWords,
  searchText,
  searchWords,
} from './dashboard-filters.js';

/** A GPU node's shape as `cluster.layout` reports it; usage comes from the live records. */
export type { NodeLayout };

/** Whether two reads of a node's layout are alike: then its live node is kept as it is. */
const sameLayout = (a: NodeLayout, b: NodeLayout): boolean => {
  for (const key of Object.keys(b) as (keyof NodeLayout)[])
    if (key !== 'cards' && a[key] !== b[key]) return false;
  return (
    a.cards.length === b.cards.length &&
    a.cards.every(
      (card, index) =>
        card.index === b.cards[index]?.index && card.wholeNvidia === b.cards[index]?.wholeNvidia,
    )
  );
};

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

/** Nodes the model and policy filters treat alike: model × policy, or model × whole cards. */
const groupOf = (layout: NodeLayout): string =>
  `${layout.model ?? ''}\u0000${layout.resourceType === 'nvidia' ? 'nvidia' : layout.policy}`;

const emptyBuckets = (): UtilisationBuckets => ({
  compute: UTILISATION_BUCKETS.map(() => 0),
  memory: UTILISATION_BUCKETS.map(() => 0),
});

const addBuckets = (total: UtilisationBuckets, part: UtilisationBuckets, sign: 1 | -1): void => {
  for (let index = 0; index < UTILISATION_BUCKETS.length; index++) {
    total.compute[index] = (total.compute[index] ?? 0) + sign * (part.compute[index] ?? 0);
    total.memory[index] = (total.memory[index] ?? 0) + sign * (part.memory[index] ?? 0);
  }
};

const sortKey = (record: AllocationRecord) =>
  `${record.namespace}\u0000${record.pod}\u0000${record.container}\u0000${String(record.card).padStart(2, '0')}`;

/**
 * The dashboard's live picture: every allocation record from `allocations.watch`, the GPU nodes'
 * shapes from `cluster.nodes`, and what follows from both — card usage, pool summaries, filtered
 * lists. Events are applied in batches (one per animation frame); only nodes a batch touched are
 * recomputed, and from them only their pools, their usage buckets and their places in the node
 * list, so a frame's work follows the size of the batch, not of the cluster (1,000 nodes, 3,000+
 * records). Derived lists are cached until the next batch. Plain TypeScript: React reads it
 * through `subscribe`/`version` (useSyncExternalStore).
 */
export class AllocationModel {
  private readonly records = new Map<string, AllocationRecord>();
  private readonly recordsByNode = new Map<string, Set<string>>();
  private layout = new Map<string, NodeLayout>();
  private readonly liveNodes = new Map<string, LiveNode>();
  private readonly poolParts = new Map<string, PoolSummary>();
  /** Each pool's parts by node, so a batch re-merges only the pools of the nodes it touched. */
  private readonly partsByPool = new Map<string, Map<string, PoolSummary>>();
  private readonly mergedPools = new Map<string, PoolSummary>();
  private readonly dirtyPools = new Set<string>();
  private sortedPools: PoolSummary[] = [];
  /** Usage buckets summed per model × policy, kept by adding a rebuilt node's change. */
  private readonly bucketsByGroup = new Map<string, UtilisationBuckets>();
  /** Every live node in name order; a rebuilt node replaces its entry (copy on write). */
  private nodeList: LiveNode[] = [];
  private readonly nodeIndex = new Map<string, number>();
  /** Whether `nodeList` was handed out since: then it is copied before the next change. */
  private nodeListShared = false;
  private readonly dirtyNodes = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly cache = new Map<string, unknown>();
  /** A record's lower-cased search text; records are replaced, never changed, when they change. */
  private readonly searchTexts = new WeakMap<AllocationRecord, string>();
  private cachedVersion = -1;
  private lastOptions: FilterOptions | undefined;
  /** Every record in list order, kept sorted as records come and go (no sort per frame). */
  private sortedKeys: string[] = [];
  private sortedRecords: AllocationRecord[] = [];
  /** How many records each namespace and workload has: the filter boxes' choices. */
  private readonly namespaceCounts = new Map<string, number>();
  private readonly workloadCounts = new Map<string, number>();
  private optionsStale = true;
  private sortedNodeNames: string[] = [];
  private unknown: string[] | undefined;
  /** Set while a snapshot is applied: the sorted list is rebuilt once at its end. */
  private bulk = false;
  /** A snapshot's parts so far (a large one comes in parts): applied once its last is in. */
  private readonly snapshotParts = new SnapshotAssembly<AllocationRecord>();
  /** Bumped by every applied batch or layout; derived values are cached per version. */
  version = 0;
  /** When the last batch that changed something was applied (ms since epoch), or null. */
  lastChangeAt: number | null = null;
  /** Whether a snapshot has arrived since the model was made (or reset). */
  hasSnapshot = false;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  getLastChangeAt = (): number | null => this.lastChangeAt;

  get recordCount(): number {
    return this.records.size;
  }

  get nodeCount(): number {
    return this.layout.size;
  }

  /** Nodes the records name that `cluster.nodes` did not list (time to fetch the layout again). */
  get unknownNodes(): string[] {
    // Read after every batch: recounted only when a node gains its first record or loses its last.
    if (this.unknown === undefined)
      this.unknown = [...this.recordsByNode.keys()].filter((node) => !this.layout.has(node));
    return this.unknown;
  }

  /**
   * Takes the GPU nodes' shapes (a fresh read every 30 s, and after a reconnect). When the same
   * nodes come back, only those whose shape changed are rebuilt, and a read that changes nothing
   * changes nothing here: at 10,000 nodes rebuilding all of them is a long task of ~0.5 s every
   * read. Nodes joining or leaving rebuild the node list.
   */
  setLayout(nodes: readonly NodeLayout[]): void {
    const next = new Map(
      nodes.filter((node) => node.resourceType !== null).map((node) => [node.name, node]),
    );
    if (next.size === this.layout.size && [...next.keys()].every((name) => this.layout.has(name))) {
      let changed = false;
      for (const [name, layout] of next) {
        const before = this.layout.get(name);
        if (before !== undefined && sameLayout(before, layout)) continue;
        this.layout.set(name, layout);
        this.dirtyNodes.add(name);
        changed = true;
      }
      if (changed) {
        this.optionsStale = true;
        this.changed(false);
      }
      return;
    }
    this.layout = next;
    this.sortedNodeNames = [...this.layout.keys()].sort();
    this.unknown = undefined;
    this.nodeIndex.clear();
    for (const [index, name] of this.sortedNodeNames.entries()) this.nodeIndex.set(name, index);
    this.nodeList = [];
    this.nodeListShared = false;
    this.liveNodes.clear();
    this.poolParts.clear();
    this.partsByPool.clear();
    this.mergedPools.clear();
    this.bucketsByGroup.clear();
    for (const name of this.layout.keys()) this.dirtyNodes.add(name);
    this.optionsStale = true;
    this.changed(false);
  }

  /**
   * Applies a batch of stream events in order; a snapshot replaces everything before it, once
   * all its parts are in (the parts before the last change nothing yet).
   */
  apply(events: readonly AllocationEvent[]): void {
    let applied = false;
    for (const event of events) {
      if (event.type === 'snapshot') {
        const records = this.snapshotParts.add(event, event.records);
        if (records === undefined) continue;
        this.replaceRecords(records);
      } else if (event.type === 'upsert') {
        for (const record of event.records) this.put(record);
      } else {
        for (const record of event.records) this.remove(record.id);
      }
      applied = true;
    }
    if (applied) this.changed(true);
  }

  /** A whole snapshot: every record before it goes. */
  private replaceRecords(records: readonly AllocationRecord[]): void {
    for (const node of this.recordsByNode.keys()) this.dirtyNodes.add(node);
    this.records.clear();
    this.recordsByNode.clear();
    this.unknown = undefined;
    this.namespaceCounts.clear();
    this.workloadCounts.clear();
    this.optionsStale = true;
    this.hasSnapshot = true;
    this.bulk = true;
    for (const record of records) this.put(record);
    this.bulk = false;
    this.rebuildSorted();
  }

  private put(record: AllocationRecord): void {
    const before = this.records.get(record.id);
    if (before !== undefined && before.node !== record.node) this.remove(record.id);
    const previous = this.records.get(record.id);
    this.records.set(record.id, record);
    if (previous === undefined) {
      this.count(record, 1);
      if (!this.bulk) this.insertSorted(record);
    } else {
      if (previous.namespace !== record.namespace || previous.workload !== record.workload) {
        this.count(previous, -1);
        this.count(record, 1);
      }
      if (!this.bulk) this.replaceSorted(record);
    }
    let ids = this.recordsByNode.get(record.node);
    if (ids === undefined) {
      ids = new Set();
      this.recordsByNode.set(record.node, ids);
      this.unknown = undefined;
    }
    ids.add(record.id);
    this.dirtyNodes.add(record.node);
  }

  private remove(id: string): void {
    const record = this.records.get(id);
    if (record === undefined) return;
    this.records.delete(id);
    this.count(record, -1);
    if (!this.bulk) {
      const index = this.findSorted(sortKey(record));
      if (this.sortedKeys[index] === sortKey(record)) {
        this.sortedKeys.splice(index, 1);
        this.sortedRecords.splice(index, 1);
      }
    }
    const ids = this.recordsByNode.get(record.node);
    ids?.delete(id);
    if (ids?.size === 0) {
      this.recordsByNode.delete(record.node);
      this.unknown = undefined;
    }
    this.dirtyNodes.add(record.node);
  }

  private count(record: AllocationRecord, delta: 1 | -1): void {
    const bump = (counts: Map<string, number>, key: string | null) => {
      if (key === null) return;
      const next = (counts.get(key) ?? 0) + delta;
      if (next <= 0) {
        counts.delete(key);
        this.optionsStale = true;
      } else {
        if (!counts.has(key)) this.optionsStale = true;
        counts.set(key, next);
      }
    };
    bump(this.namespaceCounts, record.namespace);
    bump(this.workloadCounts, record.workload);
  }

  /** The first index whose key is ≥ `key` (binary search over the sorted list). */
  private findSorted(key: string): number {
    let low = 0;
    let high = this.sortedKeys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.sortedKeys[middle] ?? '') < key) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private insertSorted(record: AllocationRecord): void {
    const key = sortKey(record);
    const index = this.findSorted(key);
    this.sortedKeys.splice(index, 0, key);
    this.sortedRecords.splice(index, 0, record);
  }

  private replaceSorted(record: AllocationRecord): void {
    const key = sortKey(record);
    const index = this.findSorted(key);
    if (this.sortedKeys[index] === key) this.sortedRecords[index] = record;
    else this.insertSorted(record);
  }

  private rebuildSorted(): void {
    const entries = [...this.records.values()]
      .map((record) => [sortKey(record), record] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.sortedKeys = entries.map(([key]) => key);
    this.sortedRecords = entries.map(([, record]) => record);
  }

  private changed(byStream: boolean): void {
    this.version++;
    if (byStream) this.lastChangeAt = Date.now();
    for (const listener of this.listeners) listener();
  }

  /** Memoises a derived value for the current version. */
  private memo<T>(key: string, compute: () => T): T {
    if (this.cachedVersion !== this.version) {
      this.cache.clear();
      this.cachedVersion = this.version;
    }
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = compute();
    this.cache.set(key, value);
    return value;
  }

  private refreshDirty(): void {
    if (this.dirtyNodes.size === 0) return;
    for (const name of this.dirtyNodes) {
      const before = this.liveNodes.get(name);
      if (before !== undefined) {
        const group = this.bucketsByGroup.get(groupOf(before.layout));
        if (group) addBuckets(group, before.buckets, -1);
      }
      this.setPart(name, undefined);
      const layout = this.layout.get(name);
      if (layout === undefined) {
        this.liveNodes.delete(name);
        continue;
      }
      const live = this.buildNode(layout);
      this.liveNodes.set(name, live);
      const index = this.nodeIndex.get(name);
      if (index !== undefined) {
        if (this.nodeListShared) this.nodeList = this.nodeList.slice();
        this.nodeListShared = false;
        this.nodeList[index] = live;
      }
      let group = this.bucketsByGroup.get(groupOf(layout));
      if (group === undefined) {
        group = emptyBuckets();
        this.bucketsByGroup.set(groupOf(layout), group);
      }
      addBuckets(group, live.buckets, 1);
      this.setPart(name, nodePoolSummary(live.state));
    }
    this.dirtyNodes.clear();
  }

  /** Replaces a node's part of its pool summary and marks the pools it left and joined. */
  private setPart(name: string, part: PoolSummary | undefined): void {
    const before = this.poolParts.get(name);
    if (before !== undefined) {
      this.partsByPool.get(before.pool)?.delete(name);
      this.dirtyPools.add(before.pool);
      this.poolParts.delete(name);
    }
    if (part === undefined) return;
    this.poolParts.set(name, part);
    let parts = this.partsByPool.get(part.pool);
    if (parts === undefined) {
      parts = new Map();
      this.partsByPool.set(part.pool, parts);
    }
    parts.set(name, part);
    this.dirtyPools.add(part.pool);
  }

  /** Every pool, sorted; a pool none of whose nodes changed keeps its object (memoised rows). */
  private allPools(): PoolSummary[] {
    this.refreshDirty();
    if (this.dirtyPools.size === 0) return this.sortedPools;
    for (const pool of this.dirtyPools) {
      const [merged] = mergePoolSummaries(this.partsByPool.get(pool)?.values() ?? []);
      if (merged) this.mergedPools.set(pool, merged);
      else this.mergedPools.delete(pool);
    }
    this.dirtyPools.clear();
    this.sortedPools = [...this.mergedPools.values()].sort((a, b) => a.pool.localeCompare(b.pool));
    return this.sortedPools;
  }

  /** Every live node in name order; the same array until a node changes. Do not mutate it. */
  private allNodes(): LiveNode[] {
    this.refreshDirty();
    this.nodeListShared = true;
    return this.nodeList;
  }

  /** Card usage from the node's records, booked by the ledger as the scheduler books it (spec §5). */
  private buildNode(layout: NodeLayout): LiveNode {
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
    for (const id of this.recordsByNode.get(layout.name) ?? []) {
      const record = this.records.get(id);
      const card = record ? cards[record.card] : undefined;
      if (record === undefined || card === undefined || card.wholeNvidia) continue;
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
    const buckets: UtilisationBuckets = {
      compute: UTILISATION_BUCKETS.map(() => 0),
      memory: UTILISATION_BUCKETS.map(() => 0),
    };
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

  node(name: string): LiveNode | undefined {
    this.refreshDirty();
    return this.liveNodes.get(name);
  }

  record(id: string): AllocationRecord | undefined {
    return this.records.get(id);
  }

  /** Pools of the nodes the filters' model and policy keep, live. */
  pools(filters: Pick<DashboardFilters, 'model' | 'policy'>): PoolSummary[] {
    return this.memo(`pools|${filters.model}|${filters.policy}`, () => {
      const pools = this.allPools();
      return filters.model || filters.policy
        ? pools.filter(
            (pool) =>
              (!filters.model || pool.model === filters.model) &&
              (!filters.policy || pool.policy === filters.policy),
          )
        : pools;
    });
  }

  private nodeMatches(layout: NodeLayout | undefined, filters: DashboardFilters): boolean {
    if (filters.model && layout?.model !== filters.model) return false;
    if (
      filters.policy &&
      (layout?.resourceType === 'nvidia' ? 'nvidia' : layout?.policy) !== filters.policy
    )
      return false;
    return true;
  }

  private recordMatches(
    record: AllocationRecord,
    filters: DashboardFilters,
    words: readonly string[],
  ): boolean {
    return (
      (!filters.namespace || record.namespace === filters.namespace) &&
      (!filters.workload || record.workload === filters.workload) &&
      (!filters.node || record.node === filters.node) &&
      this.nodeMatches(this.layout.get(record.node), filters) &&
      (words.length === 0 || matchesWords(words, this.searchTextOf(record)))
    );
  }

  /** Searched on every batch while a search is set: 3,000+ records, so made once per record. */
  private searchTextOf(record: AllocationRecord): string {
    let text = this.searchTexts.get(record);
    if (text === undefined) {
      text = searchText([
        record.namespace,
        record.pod,
        record.container,
        record.node,
        record.workload ?? '',
      ]);
      this.searchTexts.set(record, text);
    }
    return text;
  }

  /** The mGPU instances every filter keeps, by namespace, pod, container and card. */
  instances(filters: DashboardFilters): AllocationRecord[] {
    return this.memo(`instances|${JSON.stringify(filters)}`, () => {
      const filtering = Object.values(filters).some(Boolean);
      const words = searchWords(filters.search);
      return filtering
        ? this.sortedRecords.filter((record) => this.recordMatches(record, filters, words))
        : this.sortedRecords.slice();
    });
  }

  /**
   * GPU nodes the filters keep: model, policy and node on the node itself; namespace, workload
   * and search keep the nodes that hold a matching instance (or whose name matches the search).
   */
  nodes(filters: DashboardFilters): LiveNode[] {
    return this.memo(`nodes|${JSON.stringify(filters)}`, () => {
      const nodes = this.allNodes();
      if (!Object.values(filters).some(Boolean)) return nodes;
      const byInstance = Boolean(filters.namespace || filters.workload || filters.search);
      const holding = byInstance
        ? new Set(this.instances(filters).map((record) => record.node))
        : undefined;
      return nodes.filter(
        (node) =>
          this.nodeMatches(node.layout, filters) &&
          (!filters.node || node.layout.name === filters.node) &&
          (holding === undefined ||
            holding.has(node.layout.name) ||
            (!filters.namespace &&
              !filters.workload &&
              matchesSearch(filters.search, [node.layout.name, node.layout.pool]))),
      );
    });
  }

  /** How many mGPU cards of the kept nodes fall in each usage bucket (compute and memory). */
  utilisation(filters: DashboardFilters): UtilisationBuckets {
    return this.memo(`utilisation|${JSON.stringify(filters)}`, () => {
      const total = emptyBuckets();
      if (filters.node || filters.namespace || filters.workload || filters.search) {
        // Each node counted its cards when it was last rebuilt: this adds one short row per node.
        for (const node of this.nodes(filters)) addBuckets(total, node.buckets, 1);
        return total;
      }
      // Model and policy only: the per-group sums, kept as nodes change, are the answer.
      this.refreshDirty();
      for (const [group, buckets] of this.bucketsByGroup) {
        const [model, policy] = group.split('\u0000');
        if (filters.model && model !== filters.model) continue;
        if (filters.policy && policy !== filters.policy) continue;
        addBuckets(total, buckets, 1);
      }
      return total;
    });
  }

  /** The choices the filter boxes offer, from what the cluster has now. */
  options(): FilterOptions {
    if (this.lastOptions !== undefined && !this.optionsStale) return this.lastOptions;
    const models = new Set<string>();
    const policies = new Set<string>();
    for (const layout of this.layout.values()) {
      if (layout.model) models.add(layout.model);
      policies.add(layout.resourceType === 'nvidia' ? 'nvidia' : layout.policy);
    }
    const sorted = (values: Iterable<string>) => [...values].sort();
    this.lastOptions = {
      models: sorted(models),
      policies: sorted(policies),
      namespaces: sorted(this.namespaceCounts.keys()),
      workloads: sorted(this.workloadCounts.keys()),
      nodes: this.sortedNodeNames,
    };
    this.optionsStale = false;
    return this.lastOptions;
  }
}
