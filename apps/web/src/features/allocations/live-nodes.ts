import { mergePoolSummaries, nodePoolSummary, type PoolSummary } from '@mgpu/shared';
import type { AllocationState } from './allocation-events.js';
import {
  addBuckets,
  buildLiveNode,
  emptyBuckets,
  groupOf,
  type LiveNode,
  type UtilisationBuckets,
} from './allocation-selectors.js';

/**
 * The per-node views of an `AllocationState`, kept up to date by difference: each read compares
 * the state with the one read last and rebuilds only the nodes whose layout or records are other
 * objects (`PersistentMap.changedKeys` looks only at the slots a batch touched), and from them
 * only their pools, their usage buckets and their places in the node list. So a frame's work
 * follows the size of its batch, not of the cluster (10,000 nodes, 36,000 records). The
 * memoisation behind `buildLiveNode`; what it returns is not to be changed.
 */
export class LiveNodes {
  private seen: AllocationState | undefined;
  private readonly dirtyNodes = new Set<string>();
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
  /** Nodes with records and no layout; recounted only for nodes whose records changed. */
  private readonly unknown = new Set<string>();
  private unknownList: string[] | undefined;

  /** Marks what changed since the state read last; cheap, builds nothing. */
  private sync(state: AllocationState): void {
    const before = this.seen;
    if (before === state) return;
    this.seen = state;
    if (before === undefined || before.nodeNames !== state.nodeNames) {
      // Nodes joined or left: every place in the list moves, so everything is built again.
      this.nodeIndex.clear();
      for (const [index, name] of state.nodeNames.entries()) this.nodeIndex.set(name, index);
      this.nodeList = [];
      this.nodeListShared = false;
      this.liveNodes.clear();
      this.poolParts.clear();
      this.partsByPool.clear();
      this.mergedPools.clear();
      this.dirtyPools.clear();
      this.sortedPools = [];
      this.bucketsByGroup.clear();
      this.dirtyNodes.clear();
      for (const name of state.layout.keys()) this.dirtyNodes.add(name);
      this.unknown.clear();
      for (const name of state.byNode.keys()) if (!state.layout.has(name)) this.unknown.add(name);
      this.unknownList = undefined;
      return;
    }
    if (before.layout !== state.layout)
      for (const [name, layout] of state.layout)
        if (before.layout.get(name) !== layout) this.dirtyNodes.add(name);
    for (const name of state.byNode.changedKeys(before.byNode)) {
      this.dirtyNodes.add(name);
      const unknown = state.byNode.has(name) && !state.layout.has(name);
      if (unknown === this.unknown.has(name)) continue;
      if (unknown) this.unknown.add(name);
      else this.unknown.delete(name);
      this.unknownList = undefined;
    }
  }

  /** Brings every view up to `state`: the dirty nodes are built again. */
  private refresh(state: AllocationState): void {
    this.sync(state);
    if (this.dirtyNodes.size === 0) return;
    for (const name of this.dirtyNodes) {
      const before = this.liveNodes.get(name);
      if (before !== undefined) {
        const group = this.bucketsByGroup.get(groupOf(before.layout));
        if (group) addBuckets(group, before.buckets, -1);
      }
      this.setPart(name, undefined);
      const layout = state.layout.get(name);
      if (layout === undefined) {
        this.liveNodes.delete(name);
        continue;
      }
      const live = buildLiveNode(layout, state.byNode.get(name));
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

  node(state: AllocationState, name: string): LiveNode | undefined {
    this.refresh(state);
    return this.liveNodes.get(name);
  }

  /** Every live node in name order; the same array until a node changes. */
  nodes(state: AllocationState): LiveNode[] {
    this.refresh(state);
    this.nodeListShared = true;
    return this.nodeList;
  }

  /** Every pool, sorted; a pool none of whose nodes changed keeps its object (memoised rows). */
  pools(state: AllocationState): PoolSummary[] {
    this.refresh(state);
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

  /** Usage buckets per model × policy group (`groupOf`). */
  groupBuckets(state: AllocationState): ReadonlyMap<string, UtilisationBuckets> {
    this.refresh(state);
    return this.bucketsByGroup;
  }

  /** Nodes the records name that the layout does not list (time to fetch the layout again). */
  unknownNodes(state: AllocationState): string[] {
    this.sync(state);
    this.unknownList ??= [...this.unknown];
    return this.unknownList;
  }
}
