import type { V1Node, V1Pod } from '@kubernetes/client-node';
import {
  buildNodeStates,
  type ComputePolicy,
  type GpuInventory,
  type GpuModel,
  type GpuPool,
  isComputePolicy,
  largestFit,
  type NodeState,
  type PoolSummary,
  strandedCapacity,
} from '@mgpu/shared';

/** The pool a node belongs to: `<model>/<policy>`, `<model>/nvidia`, or `cpu`. */
export const poolOf = (state: NodeState) =>
  state.resourceType === undefined || state.model === undefined
    ? 'cpu'
    : `${state.model}/${state.resourceType === 'nvidia' ? 'nvidia' : state.policy}`;

/** Node states from the informer caches: the scheduler's view, shared with the preview. */
export function currentNodeStates(nodes: readonly V1Node[], pods: readonly V1Pod[]): NodeState[] {
  return buildNodeStates(nodes, pods);
}

const gpuStates = (states: readonly NodeState[]) =>
  states.filter(
    (state): state is NodeState & { resourceType: 'mgpu' | 'nvidia'; model: string } =>
      state.resourceType !== undefined && state.model !== undefined && state.cards.length > 0,
  );

/** Pools (model × policy, or model × whole cards) with what is allocatable and allocated. */
export function poolSummaries(states: readonly NodeState[]): PoolSummary[] {
  const pools = new Map<string, PoolSummary>();
  const members = new Map<string, NodeState[]>();
  for (const state of gpuStates(states)) {
    const policy = state.resourceType === 'nvidia' ? 'nvidia' : state.policy;
    const key = poolOf(state);
    const pool =
      pools.get(key) ??
      ({
        pool: key,
        model: state.model,
        resourceType: state.resourceType,
        policy,
        nodes: 0,
        cards: 0,
        memoryMiBPerCard: state.memoryMiBPerCard,
        cardsPerNode: 0,
        compute: { allocatable: 0, allocated: 0 },
        memoryMiB: { allocatable: 0, allocated: 0 },
        cardsPartlyUsed: 0,
        cardsIdle: 0,
        stranded: { computePercent: 0, memoryMiB: 0, cards: 0 },
        largestFit: { computePercent: 0, memoryMiB: 0, idleCards: 0, cards: 0 },
      } satisfies PoolSummary);
    members.set(key, [...(members.get(key) ?? []), state]);
    pool.nodes++;
    pool.cards += state.cards.length;
    pool.cardsPerNode = Math.max(pool.cardsPerNode, state.cards.length);
    pool.memoryMiBPerCard = Math.max(pool.memoryMiBPerCard, state.memoryMiBPerCard);
    for (const card of state.cards) {
      pool.compute.allocatable += 100;
      pool.compute.allocated += card.usedCompute;
      pool.memoryMiB.allocatable += state.memoryMiBPerCard;
      pool.memoryMiB.allocated += card.usedMemoryMiB;
      if (card.usedCompute === 0 && card.usedMemoryMiB === 0 && !card.wholeNvidia) pool.cardsIdle++;
      else if (card.usedCompute < 100 || card.usedMemoryMiB < state.memoryMiBPerCard)
        pool.cardsPartlyUsed++;
    }
    pools.set(key, pool);
  }
  for (const [key, pool] of pools) {
    const nodes = members.get(key) ?? [];
    pool.stranded = strandedCapacity(nodes);
    pool.largestFit = largestFit(nodes);
  }
  return [...pools.values()].sort((a, b) => a.pool.localeCompare(b.pool));
}

/** The cluster-aware rules' input: one entry per pool. */
export function inventoryOf(pools: readonly PoolSummary[]): GpuInventory {
  return {
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
export function gpuModels(pools: readonly PoolSummary[]): GpuModel[] {
  const models = new Map<string, GpuModel>();
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
      } satisfies GpuModel);
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
