import {
  type CardPolicy,
  type GpuInventory,
  type NamespaceQuota,
  type NodeState,
  NodeStatesBuilder,
  namespaceQuotaOf,
  type PoolSummary,
  poolSummaries,
} from '@mgpu/shared';
import { PendingPodsView } from '../live/pending-pods.js';
import type { ClusterClient } from './cluster-client.js';

interface Snapshot {
  nodesVersion: number;
  podsVersion: number;
  states: readonly NodeState[];
  pools?: PoolSummary[];
  podSlots?: NonNullable<GpuInventory['podSlots']>;
}

/**
 * What the console derives from its informers — node states, pools, pod slots, quotas and the
 * pending pods — built once in `startBff` and shared by every operator, `PoolHistory` and the
 * metrics (issue 26: a cache keyed by each operator's `ClusterClient` gave every operator, and a
 * bearer-token operator every minute, a full rebuild and a copy of its own). An operator's
 * answer is a cut of these views (`identity/filtered-reads.ts`), never a view of its own.
 *
 * Node states are redone once per change of the caches, not per call, and then only for the
 * nodes the change touched (`NodeStatesBuilder`): a full build on 1,000 nodes with 3,000 pods is
 * ~20 ms, which every keystroke's preview, create and scrape under churn would pay. Shared, so
 * read-only: a caller that books something on a node (the preview's next replica) clones it first.
 */
export class ClusterViews {
  readonly modelLabel: string;
  readonly cardPolicy: CardPolicy;
  /** The GPU pods no node holds yet, grouped by shape (`cluster.pending*`, metrics, history). */
  readonly pending: PendingPodsView;
  private readonly builder: NodeStatesBuilder;
  private snapshot: Snapshot | undefined;
  private buildCount = 0;

  constructor(
    /** The console's own client: its informers are the ones every operator's client shares. */
    readonly cluster: ClusterClient,
    options: { modelLabel: string; cardPolicy: CardPolicy },
  ) {
    this.modelLabel = options.modelLabel;
    this.cardPolicy = options.cardPolicy;
    this.builder = new NodeStatesBuilder({ modelLabel: options.modelLabel });
    this.pending = new PendingPodsView(this);
  }

  /** How many times the node states were built rather than answered from the last build. */
  get builds(): number {
    return this.buildCount;
  }

  /** Whether the nodes were listed once: before that the cluster is unknown, not empty. */
  get synced(): boolean {
    return this.cluster.nodes.health.synced;
  }

  private current(): Snapshot {
    const { nodes, pods } = this.cluster;
    const kept = this.snapshot;
    if (kept?.nodesVersion === nodes.version && kept.podsVersion === pods.version) return kept;
    this.buildCount += 1;
    this.snapshot = {
      nodesVersion: nodes.version,
      podsVersion: pods.version,
      states: this.builder.build(nodes.list(), pods.list()),
    };
    return this.snapshot;
  }

  /** Node states from the informer caches: the scheduler's view, shared with the preview. */
  nodeStates(): readonly NodeState[] {
    return this.current().states;
  }

  /** The pools of `nodeStates`, summed once per change of the caches. */
  pools(): PoolSummary[] {
    const snapshot = this.current();
    snapshot.pools ??= poolSummaries(snapshot.states);
    return snapshot.pools;
  }

  /**
   * Every node's allocatable pods, summed once per change of the caches: what the cluster could
   * run at once if it were empty. Cordoned and NotReady nodes count too (counted generously:
   * they may come back, so nothing placeable is refused).
   */
  podSlots(): NonNullable<GpuInventory['podSlots']> {
    const snapshot = this.current();
    snapshot.podSlots ??= {
      nodes: snapshot.states.length,
      pods: snapshot.states.reduce((sum, state) => sum + state.maxPods, 0),
    };
    return snapshot.podSlots;
  }

  /**
   * The namespaces' ResourceQuotas from the informer, or undefined until it has listed once (not
   * known is not "no quota": the rule then stays silent rather than guess).
   */
  quotas(): NamespaceQuota[] | undefined {
    const informer = this.cluster.resourceQuotas;
    if (!informer.health.synced) return undefined;
    return informer.list().map(namespaceQuotaOf);
  }
}
