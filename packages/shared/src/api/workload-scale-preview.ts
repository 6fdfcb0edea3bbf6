import { z } from 'zod';
import { RequestVerdictSchema } from '../verdict.js';
import { RuleErrorSchema } from './building-blocks.js';
import { PreviewResultSchema } from './workload-preview.js';
import { ScaleInputSchema } from './workload-scale.js';

/**
 * `workload.scalePreview` (spec §9): what a scale to `replicas` would do, before it is sent: the
 * rules `workload.scale` applies, and where the replicas it adds would land beside the running
 * pods, which keep their cards. The scale dialog says its verdict and asks before a waiting scale.
 */
export const ScalePreviewInputSchema = ScaleInputSchema.omit({ force: true });

export const ScalePreviewResultSchema = z.object({
  /** The workload's pods that hold a node now; the replicas beyond them are placed. */
  running: z.number(),
  errors: z.array(RuleErrorSchema),
  /** As the preview's; replicas are numbered on from the running ones. */
  placement: PreviewResultSchema.shape.placement,
  verdict: RequestVerdictSchema,
});

export type ScalePreviewResult = z.infer<typeof ScalePreviewResultSchema>;
