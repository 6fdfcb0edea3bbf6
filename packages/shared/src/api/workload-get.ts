import { z } from 'zod';
import { KEPT_UNEXPRESSED, LOST_UNEXPRESSED } from '../read-workload.js';
import { WorkloadRequestSchema } from '../request.js';
import { WorkloadSummarySchema } from './workload-list.js';

/**
 * `workload.get` (its input: `WorkloadLookupSchema`): one workload as the console shows it: the request read back, its status, and only the labels
 * and annotations the console itself sets. Never the whole object: a Deployment's env values,
 * volumes and the rest of its spec may hold secrets the console has no reason to pass on.
 */
export const WorkloadDetailSchema = WorkloadSummarySchema.extend({
  request: WorkloadRequestSchema,
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  /**
   * The pod template's fields the request cannot express (paths, never values): `kept` ones an
   * update leaves as they are; any other makes the edit form read-only, saying why.
   */
  unexpressed: z
    .array(
      z.object({
        path: z.string(),
        reason: z.enum([...KEPT_UNEXPRESSED, ...LOST_UNEXPRESSED]),
        kept: z.boolean(),
      }),
    )
    .default([]),
  /**
   * The live object cut to the fields the form manages (`managedFieldsOf`): what the edit form
   * diffs as YAML against the edited object before applying.
   */
  manifest: z.record(z.string(), z.unknown()).optional(),
  /** The node label the GPU model is pinned with (`--model-label`), for that diff's edited side. */
  modelLabel: z.string().optional(),
});

export type WorkloadDetail = z.infer<typeof WorkloadDetailSchema>;
