import { z } from 'zod';
import { LangSchema, WorkloadLookupSchema } from './building-blocks.js';
import { MAX_RESOURCE_VERSION } from './workload-update.js';

/**
 * `workload.rollback` (spec §9): a revision of `workload.history` written back through the
 * update path — the same conflict check on `resourceVersion`, rules, quota and audit line as
 * `workload.update`; its answer is `workload.update`'s (`UpdateResultSchema`).
 */
export const RollbackInputSchema = WorkloadLookupSchema.extend({
  revision: z.number().int().min(1),
  resourceVersion: z.string().min(1).max(MAX_RESOURCE_VERSION),
  /** As `workload.update`'s: a workload the console did not make is rolled back only with it. */
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export type RollbackInput = z.infer<typeof RollbackInputSchema>;
