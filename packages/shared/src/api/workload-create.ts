import { z } from 'zod';
import { CreatableKindSchema, WorkloadRequestSchema } from '../request.js';
import { wrapBare } from './bare-request.js';
import { LangSchema, WorkloadRefSchema } from './building-blocks.js';

/** `workload.create`: the request checked again and written as a workload (spec §7). */

export const CreateInputSchema = z.preprocess(
  wrapBare,
  z.object({
    request: WorkloadRequestSchema,
    /** Set once per form submission; a retry with the same id never makes a second Deployment. */
    clientRequestId: z.string().min(1).max(128).optional(),
    lang: LangSchema.default('zh-CN'),
  }),
);

export const CreateResultSchema = WorkloadRefSchema.extend({
  uid: z.string(),
  /** False when this was a retry and the Deployment already existed from the same request. */
  created: z.boolean(),
  clientRequestId: z.string().nullable(),
  /** The object as the API server stored it (named `deployment` since §7; any kind of §8). */
  deployment: z.record(z.string(), z.unknown()),
  kind: CreatableKindSchema,
});

export type CreateResult = z.infer<typeof CreateResultSchema>;
