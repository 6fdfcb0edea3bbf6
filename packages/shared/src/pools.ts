import type { PoolSummary } from './api/cluster-summary.js';
import { largestFit, strandedCapacity } from './capacity.js';
import type { NodeState } from './placement/types.js';

/** The pool a node belongs to: `<model>/<policy>`, `<model>/nvidia`, or `cpu`. */
export const poolOf = (state: NodeState): string =>
  state.resourceType === undefined || state.model === undefined
    ? 'cpu'
    : `${state.model}/${state.resourceType === 'nvidia' ? 'nvidia' : state.policy}`;

/**
 * One GPU node's part of its pool's summary. Every figure of a pool is a sum or a maximum over
 * its nodes, so a live view can keep one part per node, redo only the nodes that changed, and
 * merge (`mergePoolSummary`) — the BFF's `cluster.summary` merges the same parts.
 * Undefined for nodes without GPUs.
 */
export function nodePoolSummary(state: NodeState): PoolSummary | undefined {
  if (state.resourceType === undefined || state.model === undefined || state.cards.length === 0)
    return undefined;
  const summary: PoolSummary = {
    pool: poolOf(state),
    model: state.model,
    resourceType: state.resourceType,
    policy: state.resourceType === 'nvidia' ? 'nvidia' : state.policy,
    nodes: 1,
    cards: state.cards.length,
    memoryMiBPerCard: state.memoryMiBPerCard,
    cardsPerNode: state.cards.length,
    compute: { allocatable: 0, allocated: 0 },
    memoryMiB: { allocatable: 0, allocated: 0 },
    cardsPartlyUsed: 0,
    cardsIdle: 0,
    stranded: strandedCapacity([state]),
    largestFit: largestFit([state]),
  };
  for (const card of state.cards) {
    summary.compute.allocatable += 100;
    summary.compute.allocated += card.usedCompute;
    summary.memoryMiB.allocatable += state.memoryMiBPerCard;
    summary.memoryMiB.allocated += card.usedMemoryMiB;
    if (card.usedCompute === 0 && card.usedMemoryMiB === 0 && !card.wholeNvidia)
      summary.cardsIdle++;
    else if (card.usedCompute < 100 || card.usedMemoryMiB < state.memoryMiBPerCard)
      summary.cardsPartlyUsed++;
  }
  return summary;
}

/** Adds `part` (another node of the same pool) into `total`, in place. */
export function mergePoolSummary(total: PoolSummary, part: PoolSummary): PoolSummary {
  total.nodes += part.nodes;
  total.cards += part.cards;
  total.cardsPerNode = Math.max(total.cardsPerNode, part.cardsPerNode);
  total.memoryMiBPerCard = Math.max(total.memoryMiBPerCard, part.memoryMiBPerCard);
  total.compute.allocatable += part.compute.allocatable;
  total.compute.allocated += part.compute.allocated;
  total.memoryMiB.allocatable += part.memoryMiB.allocatable;
  total.memoryMiB.allocated += part.memoryMiB.allocated;
  total.cardsPartlyUsed += part.cardsPartlyUsed;
  total.cardsIdle += part.cardsIdle;
  total.stranded.computePercent += part.stranded.computePercent;
  total.stranded.memoryMiB += part.stranded.memoryMiB;
  total.stranded.cards += part.stranded.cards;
  // The largest request is limited to one node: the pool's is the best of its nodes'.
  total.largestFit.computePercent = Math.max(
    total.largestFit.computePercent,
    part.largestFit.computePercent,
  );
  total.largestFit.memoryMiB = Math.max(total.largestFit.memoryMiB, part.largestFit.memoryMiB);
  total.largestFit.idleCards = Math.max(total.largestFit.idleCards, part.largestFit.idleCards);
  total.largestFit.cards = Math.max(total.largestFit.cards, part.largestFit.cards);
  return total;
}

const copyOf = (summary: PoolSummary): PoolSummary => ({
  ...summary,
  compute: { ...summary.compute },
  memoryMiB: { ...summary.memoryMiB },
  stranded: { ...summary.stranded },
  largestFit: { ...summary.largestFit },
});

/** Pools from per-node parts, sorted by pool name; the parts are left as they were. */
export function mergePoolSummaries(parts: Iterable<PoolSummary>): PoolSummary[] {
  const pools = new Map<string, PoolSummary>();
  for (const part of parts) {
    const pool = pools.get(part.pool);
    if (pool === undefined) pools.set(part.pool, copyOf(part));
    else mergePoolSummary(pool, part);
  }
  return [...pools.values()].sort((a, b) => a.pool.localeCompare(b.pool));
}

/**
 * Each node state's part, kept while its `version` stands: node states that survive a change
 * (`NodeStatesBuilder`) are not summed again — their stranded capacity and largest fit are most
 * of a pool's cost. `mergePoolSummaries` leaves the parts as they were, so sharing them is safe.
 */
const nodeParts = new WeakMap<NodeState, { version: number; part: PoolSummary | undefined }>();

function nodePart(state: NodeState): PoolSummary | undefined {
  const known = nodeParts.get(state);
  if (known?.version === state.version) return known.part;
  const part = nodePoolSummary(state);
  nodeParts.set(state, { version: state.version, part });
  return part;
}

/** Pools (model × policy, or model × whole cards) with what is allocatable and allocated. */
export function poolSummaries(states: readonly NodeState[]): PoolSummary[] {
  return mergePoolSummaries(
    states.map(nodePart).filter((part): part is PoolSummary => part !== undefined),
  );
}
