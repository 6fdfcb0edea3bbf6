import { z } from 'zod';
import { CardTypeSchema } from '../ledger/claim.js';

/** `gpu.models` (no input, `NoInputSchema`): the GPU models the cluster's nodes have. */
export const GpuModelSchema = z.object({
  model: z.string(),
  memoryMiBPerCard: z.number(),
  cardsPerNode: z.number(),
  resourceTypes: z.array(CardTypeSchema),
  policies: z.array(z.string()),
  /** The figures below are absent for an operator who may not list nodes (spec §8). */
  nodes: z.number().optional(),
  freeComputePercent: z.number().optional(),
  freeMemoryMiB: z.number().optional(),
  idleCards: z.number().optional(),
});

export const GpuModelsSchema = z.array(GpuModelSchema);

export type GpuModel = z.infer<typeof GpuModelSchema>;
