import { z } from 'zod';
import { CardTypeSchema } from '../ledger/claim.js';

export const PoolSummarySchema = z.object({
  /** `<model>/<policy>` for mGPU pools, `<model>/nvidia` for whole-card pools. */
  pool: z.string(),
  model: z.string(),
  resourceType: CardTypeSchema,
  policy: z.string(),
  nodes: z.number(),
  cards: z.number(),
  memoryMiBPerCard: z.number(),
  cardsPerNode: z.number(),
  compute: z.object({ allocatable: z.number(), allocated: z.number() }),
  memoryMiB: z.object({ allocatable: z.number(), allocated: z.number() }),
  cardsPartlyUsed: z.number(),
  cardsIdle: z.number(),
  /** Free capacity no request can use right now (see capacity.ts). */
  stranded: z.object({ computePercent: z.number(), memoryMiB: z.number(), cards: z.number() }),
  /** The largest request each dimension still allows on one node of the pool. */
  largestFit: z.object({
    computePercent: z.number(),
    memoryMiB: z.number(),
    idleCards: z.number(),
    cards: z.number(),
  }),
});

/** `cluster.summary` (no input, `NoInputSchema`): the cluster and its pools. */
export const ClusterSummarySchema = z.object({
  version: z.string(),
  source: z.string(),
  nodes: z.number(),
  pools: z.array(PoolSummarySchema),
});

export type PoolSummary = z.infer<typeof PoolSummarySchema>;
export type ClusterSummary = z.infer<typeof ClusterSummarySchema>;
