import {
  ClusterLayoutSchema,
  ClusterNodesInputSchema,
  ClusterNodesSchema,
  type NodeLayout,
  type NodeState,
  type NodeView,
  strandedOnCard,
} from '@mgpu/shared';
import { poolOf } from '../cluster/inventory.js';
import { requireListNodes, visibleItems } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';

/** A node as both procedures name and describe it, its cards aside. */
const shapeOf = (state: NodeState): Omit<NodeLayout, 'cards'> => ({
  name: state.name,
  pool: poolOf(state),
  model: state.model ?? null,
  policy: state.policy,
  resourceType: state.resourceType ?? null,
  schedulable: state.schedulable,
  memoryMiBPerCard: state.memoryMiBPerCard,
});

/**
 * `cluster.nodes`: every GPU node's cards — compute and memory used, instances of 16, what is
 * stranded, and who holds each card (namespace / pod / container with its share).
 *
 * A signed-in operator needs `list nodes` for any of it. On a card shared with another team the
 * card's figures stay whole (used compute, memory, instances: what `list nodes` already shows of
 * it through the nodes' reports), but its holders are only those in namespaces the operator may
 * list pods in: another team's pod, container and workload names are not theirs to see.
 */
export const clusterNodes = publicProcedure
  .input(ClusterNodesInputSchema)
  .output(ClusterNodesSchema)
  .query(async ({ ctx, input }) => {
    await requireListNodes(ctx);
    const holders = new Map<string, NodeView['cards'][number]['holders']>();
    const records = await visibleItems(
      ctx,
      ctx.allocations.snapshot(input?.node ? { node: input.node } : {}),
    );
    for (const record of records) {
      const key = `${record.node}/${record.card}`;
      let onCard = holders.get(key);
      if (onCard === undefined) {
        onCard = [];
        holders.set(key, onCard);
      }
      onCard.push({
        recordId: record.id,
        namespace: record.namespace,
        pod: record.pod,
        container: record.container,
        workload: record.workload,
        computePercent: record.requested.computePercent,
        memoryMiB: record.requested.memoryMiB,
      });
    }
    return ctx.views
      .nodeStates()
      .filter((state) => state.resourceType !== undefined)
      .filter((state) => !input?.node || state.name === input.node)
      .filter((state) => !input?.pool || poolOf(state) === input.pool)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((state) => ({
        ...shapeOf(state),
        cards: state.cards.map((card) => ({
          index: card.index,
          usedCompute: card.usedCompute,
          usedMemoryMiB: card.usedMemoryMiB,
          instances: card.instances,
          wholeNvidia: card.wholeNvidia,
          stranded: strandedOnCard(state, card),
          holders: holders.get(`${state.name}/${card.index}`) ?? [],
        })),
      }));
  });

/** Each states list's layouts: the list is rebuilt only after the informers saw a change. */
const layouts = new WeakMap<readonly NodeState[], NodeLayout[]>();

/**
 * `cluster.layout`: every GPU node's shape (pool, model, policy, schedulable, its cards) without
 * usage or holders, for the dashboard, which takes usage from `allocations.watch` and re-reads
 * the shape now and then. At 10,000 nodes × 8 cards with 30,000 pods `cluster.nodes` builds,
 * checks and sends every holder of every card (18.8 MB); this is a quarter of the bytes and
 * needs no record.
 * Same rule: a signed-in operator needs `list nodes`.
 */
export const clusterLayout = publicProcedure.output(ClusterLayoutSchema).query(async ({ ctx }) => {
  await requireListNodes(ctx);
  const states = ctx.views.nodeStates();
  let layout = layouts.get(states);
  if (layout === undefined) {
    layout = states
      .filter((state) => state.resourceType !== undefined)
      .map((state) => ({
        ...shapeOf(state),
        cards: state.cards.map((card) => ({ index: card.index, wholeNvidia: card.wholeNvidia })),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    layouts.set(states, layout);
  }
  return layout;
});
