import { z } from 'zod';
import { CreatableKindSchema } from '../request.js';
import { MAX_REPLICAS } from '../rules.js';
import { LangSchema, WorkloadLookupSchema, WorkloadRefSchema } from './building-blocks.js';

/**
 * `workload.scale` (spec §8): a Deployment's or StatefulSet's replicas, a Job's parallelism
 * (its pods at once; its completions cannot change).
 */
export const ScaleInputSchema = WorkloadLookupSchema.extend({
  replicas: z.number().int().min(0).max(MAX_REPLICAS),
  /** As `workload.update`'s: a workload the console did not make is scaled only with it. */
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const ScaleResultSchema = WorkloadRefSchema.extend({
  kind: CreatableKindSchema,
  replicas: z.number(),
  resourceVersion: z.string(),
});

export type ScaleResult = z.infer<typeof ScaleResultSchema>;
