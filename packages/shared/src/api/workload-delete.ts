import { z } from 'zod';
import { CreatableKindSchema } from '../request.js';
import { LangSchema, WorkloadRefSchema } from './building-blocks.js';

/**
 * `workload.delete`: only workloads labelled as made by the console (spec §8) unless `force`
 * says the operator confirmed deleting someone else's.
 */
export const DeleteInputSchema = WorkloadRefSchema.extend({
  kind: CreatableKindSchema.optional(),
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const DeleteResultSchema = WorkloadRefSchema.extend({ deleted: z.literal(true) });
