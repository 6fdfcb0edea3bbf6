import {
  type ComputePolicy,
  type GpuInventory,
  type GpuModel,
  type GpuPool,
  isComputePolicy,
  type NamespaceQuota,
  type PoolSummary,
  poolOf,
  poolSummaries,
  type QuotaRollout,
} from '@mgpu/shared';

// Pools are summed per node in shared, so the dashboard can keep them live node by node.
export { poolOf, poolSummaries };

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
