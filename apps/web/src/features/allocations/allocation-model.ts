import type { AllocationEvent, AllocationRecord, NodeLayout, PoolSummary } from '@mgpu/shared';
import { type AllocationState, applyEvents, initialAllocationState } from './allocation-events.js';
import { withLayout } from './allocation-layout.js';
import {
  createFilterOptionsSelector,
  type FilterOptions,
  filterNodes,
  filterPools,
  filtersNodesByName,
  type LiveNode,
  selectInstances,
  sumGroupBuckets,
  sumNodeBuckets,
  type UtilisationBuckets,
} from './allocation-selectors.js';
import type { DashboardFilters } from './dashboard-filters.js';
import { LiveNodes } from './live-nodes.js';

export {
  type FilterOptions,
  type LiveCard,
  type LiveNode,
  UTILISATION_BUCKETS,
  type UtilisationBuckets,
} from './allocation-selectors.js';
/** A GPU node's shape as `cluster.layout` reports it; usage comes from the live records. */
export type { NodeLayout };

/**
 * The dashboard's live picture for React: holds the current `AllocationState` (changed only by
 * the pure `applyEvents` and `withLayout`), tells subscribers when it changed, and answers with
 * the selectors — memoised until the next change, the per-node ones kept by difference in
 * `LiveNodes`. Events come in batches (one per animation frame, `use-allocation-stream.ts`);
 * React reads the model through `subscribe`/`version` (useSyncExternalStore).
 */
export class AllocationModel {
  private state: AllocationState = initialAllocationState;
  private readonly live = new LiveNodes();
  private readonly selectOptions = createFilterOptionsSelector();
  private readonly listeners = new Set<() => void>();
  private readonly cache = new Map<string, unknown>();
  private cachedVersion = -1;
  /** Bumped by every applied batch or changed layout; derived values are cached per version. */
  version = 0;
  /** When the last batch that changed something was applied (ms since epoch), or null. */
  lastChangeAt: number | null = null;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getVersion = (): number => this.version;

  getLastChangeAt = (): number | null => this.lastChangeAt;

  /** Whether a snapshot has arrived since the model was made. */
  get hasSnapshot(): boolean {
    return this.state.hasSnapshot;
  }

  get recordCount(): number {
    return this.state.records.size;
  }

  get nodeCount(): number {
    return this.state.layout.size;
  }

  /** Nodes the records name that `cluster.nodes` did not list (time to fetch the layout again). */
  get unknownNodes(): string[] {
    return this.live.unknownNodes(this.state);
  }

  /** Takes the GPU nodes' shapes (a fresh read every 30 s, and after a reconnect). */
  setLayout(nodes: readonly NodeLayout[]): void {
    const next = withLayout(this.state, nodes);
    if (next === this.state) return;
    this.state = next;
    this.changed(false);
  }

  /** Applies a batch of stream events in order (see `applyEvents`). */
  apply(events: readonly AllocationEvent[]): void {
    const next = applyEvents(this.state, events);
    const applied = next.revision !== this.state.revision;
    this.state = next;
    if (applied) this.changed(true);
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

  node(name: string): LiveNode | undefined {
    return this.live.node(this.state, name);
  }

  record(id: string): AllocationRecord | undefined {
    return this.state.records.get(id);
  }

  /** Pools of the nodes the filters' model and policy keep, live. */
  pools(filters: Pick<DashboardFilters, 'model' | 'policy'>): PoolSummary[] {
    return this.memo(`pools|${filters.model}|${filters.policy}`, () =>
      filterPools(this.live.pools(this.state), filters),
    );
  }

  /** The mGPU instances every filter keeps, by namespace, pod, container and card. */
  instances(filters: DashboardFilters): AllocationRecord[] {
    return this.memo(`instances|${JSON.stringify(filters)}`, () =>
      selectInstances(this.state, filters),
    );
  }

  /** GPU nodes the filters keep (see `filterNodes`); the same array while nothing changed. */
  nodes(filters: DashboardFilters): LiveNode[] {
    return this.memo(`nodes|${JSON.stringify(filters)}`, () =>
      filterNodes(this.live.nodes(this.state), filters, () => this.instances(filters)),
    );
  }

  /** How many mGPU cards of the kept nodes fall in each usage bucket (compute and memory). */
  utilisation(filters: DashboardFilters): UtilisationBuckets {
    return this.memo(`utilisation|${JSON.stringify(filters)}`, () =>
      // Model and policy only: the per-group sums, kept as nodes change, are the answer.
      filtersNodesByName(filters)
        ? sumNodeBuckets(this.nodes(filters))
        : sumGroupBuckets(this.live.groupBuckets(this.state), filters),
    );
  }

  /** The choices the filter boxes offer, from what the cluster has now. */
  options(): FilterOptions {
    return this.selectOptions(this.state);
  }
}
