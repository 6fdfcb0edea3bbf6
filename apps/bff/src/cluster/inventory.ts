import {
  type ComputePolicy,
  type GpuInventory,
  type GpuModel,
  type GpuPool,
  isComputePolicy,
  type NamespaceQuota,
  type NodeState,
  NodeStatesBuilder,
  namespaceQuotaOf,
  type PoolSummary,
  poolOf,
  poolSummaries,
  type QuotaRollout,
} from '@mgpu/shared';
import type { BffContext } from '../trpc/context.js';

// Pools are summed per node in shared, so the dashboard can keep them live node by node.
export { poolOf, poolSummaries };

interface ClusterView {
  nodesVersion: number;
  podsVersion: number;
  modelLabel: string;
  states: readonly NodeState[];
  pools?: PoolSummary[];
  podSlots?: NonNullable<GpuInventory['podSlots']>;
}

/** One view per cluster client, rebuilt only after its informers saw a change. */
const views = new WeakMap<object, ClusterView>();
/** Per cluster client: the node states kept across changes (only the changed nodes are rebuilt). */
const builders = new WeakMap<object, { modelLabel: string; builder: NodeStatesBuilder }>();

function clusterView(ctx: BffContext): ClusterView {
  const { nodes, pods } = ctx.cluster;
  const cached = views.get(ctx.cluster);
  if (
    cached?.nodesVersion === nodes.version &&
    cached.podsVersion === pods.version &&
    cached.modelLabel === ctx.modelLabel
  )
    return cached;
  let kept = builders.get(ctx.cluster);
  if (kept?.modelLabel !== ctx.modelLabel) {
    kept = {
      modelLabel: ctx.modelLabel,
      builder: new NodeStatesBuilder({ modelLabel: ctx.modelLabel }),
    };
    builders.set(ctx.cluster, kept);
  }
  const view: ClusterView = {
    nodesVersion: nodes.version,
    podsVersion: pods.version,
    modelLabel: ctx.modelLabel,
    states: kept.builder.build(nodes.list(), pods.list()),
  };
  views.set(ctx.cluster, view);
  return view;
}

/**
 * Node states from the informer caches: the scheduler's view, shared with the preview. Built
 * once per change of the caches, not per call, and then only for the nodes the change touched
 * (`NodeStatesBuilder`): a full build on 1,000 nodes with 3,000 pods is ~20 ms, which every
 * keystroke's preview, every create and every `/metrics` scrape under churn paid. Shared, so
 * read-only: a caller that books something on a node (the preview's next replica) clones that
 * node first.
 */
export function currentNodeStates(ctx: BffContext): readonly NodeState[] {
  return clusterView(ctx).states;
}

/** The pools of `currentNodeStates`, summed once per change of the caches. */
export function currentPools(ctx: BffContext): PoolSummary[] {
  const view = clusterView(ctx);
  view.pools ??= poolSummaries(view.states);
  return view.pools;
}

/**
 * Every node's allocatable pods, summed once per change of the caches: what the cluster could run
 * at once if it were empty. Cordoned and NotReady nodes count too (counted generously: they may
 * come back, so nothing placeable is refused).
 */
export function currentPodSlots(ctx: BffContext): NonNullable<GpuInventory['podSlots']> {
  const view = clusterView(ctx);
  view.podSlots ??= {
    nodes: view.states.length,
    pods: view.states.reduce((sum, state) => sum + state.maxPods, 0),
  };
  return view.podSlots;
}

/**
 * The namespaces' ResourceQuotas from the informer, or undefined until it has listed once (not
 * known is not "no quota": the rule then stays silent rather than guess).
 */
export function currentQuotas(ctx: BffContext): NamespaceQuota[] | undefined {
  const informer = ctx.cluster.resourceQuotas;
  if (!informer.health.synced) return undefined;
  return informer.list().map(namespaceQuotaOf);
}

/**
 * The cluster-aware rules' input: one entry per pool, the nodes' pod slots, and the quotas when
 * they are known.
 */
export function inventoryOf(
  pools: readonly PoolSummary[],
  podSlots: GpuInventory['podSlots'],
  quotas?: readonly NamespaceQuota[],
  rollout?: QuotaRollout,
): GpuInventory {
  return {
    ...(podSlots !== undefined ? { podSlots } : {}),
    ...(quotas !== undefined ? { quotas } : {}),
    ...(rollout !== undefined ? { rollout } : {}),
    pools: pools.map(
      (pool): GpuPool => ({
        model: pool.model,
        resourceType: pool.resourceType,
        // Whole-card pools skip the policy match; the rules only read `policy` for mGPU pools.
        policy: (isComputePolicy(pool.policy)
          ? pool.policy
          : 'fixed-share') satisfies ComputePolicy,
        cardsPerNode: pool.cardsPerNode,
        memoryMiBPerCard: pool.memoryMiBPerCard,
        nodes: pool.nodes,
      }),
    ),
  };
}

/** What the form's 显卡类型 offers: each model with its card shape, policies and free room. */
export function gpuModels(pools: readonly PoolSummary[]): Required<GpuModel>[] {
  const models = new Map<string, Required<GpuModel>>();
  for (const pool of pools) {
    const model =
      models.get(pool.model) ??
      ({
        model: pool.model,
        memoryMiBPerCard: 0,
        cardsPerNode: 0,
        resourceTypes: [],
        policies: [],
        nodes: 0,
        freeComputePercent: 0,
        freeMemoryMiB: 0,
        idleCards: 0,
      } satisfies Required<GpuModel>);
    model.memoryMiBPerCard = Math.max(model.memoryMiBPerCard, pool.memoryMiBPerCard);
    model.cardsPerNode = Math.max(model.cardsPerNode, pool.cardsPerNode);
    if (!model.resourceTypes.includes(pool.resourceType))
      model.resourceTypes.push(pool.resourceType);
    if (pool.resourceType === 'mgpu' && !model.policies.includes(pool.policy))
      model.policies.push(pool.policy);
    model.nodes += pool.nodes;
    model.freeComputePercent += pool.compute.allocatable - pool.compute.allocated;
    model.freeMemoryMiB += pool.memoryMiB.allocatable - pool.memoryMiB.allocated;
    model.idleCards += pool.cardsIdle;
    models.set(pool.model, model);
  }
  return [...models.values()].sort((a, b) => a.model.localeCompare(b.model));
}
