import { z } from 'zod';
import { CardClaimSchema, CardTypeSchema } from '../ledger/claim.js';

/** `cluster.nodes`: every GPU node, or those of one pool, or one node. */
export const ClusterNodesInputSchema = z
  .object({ pool: z.string().optional(), node: z.string().optional() })
  .optional();

/** Who holds an instance on a card, and their claim on it. */
export const CardHolderSchema = z.object({
  recordId: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  workload: z.string().nullable(),
  ...CardClaimSchema.shape,
});

export const NodeViewSchema = z.object({
  name: z.string(),
  pool: z.string(),
  model: z.string().nullable(),
  policy: z.string(),
  resourceType: CardTypeSchema.nullable(),
  schedulable: z.boolean(),
  memoryMiBPerCard: z.number(),
  cards: z.array(
    z.object({
      index: z.number(),
      usedCompute: z.number(),
      usedMemoryMiB: z.number(),
      instances: z.number(),
      wholeNvidia: z.boolean(),
      stranded: z.object({ computePercent: z.number(), memoryMiB: z.number() }),
      holders: z.array(CardHolderSchema),
    }),
  ),
});

export const ClusterNodesSchema = z.array(NodeViewSchema);

/**
 * A GPU node's shape without its usage (`cluster.layout`, no input): what a live view draws the
 * node's cards from, its usage coming from `allocations.watch`. A quarter of `cluster.nodes`'
 * bytes at 10,000 nodes × 8 cards with 30,000 pods, no holders, and the same until nodes change.
 */
export const NodeLayoutSchema = NodeViewSchema.omit({ cards: true }).extend({
  cards: z.array(z.object({ index: z.number(), wholeNvidia: z.boolean() })),
});

export const ClusterLayoutSchema = z.array(NodeLayoutSchema);

export type NodeView = z.infer<typeof NodeViewSchema>;
export type NodeLayout = z.infer<typeof NodeLayoutSchema>;
