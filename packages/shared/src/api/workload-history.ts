import { z } from 'zod';
import { WorkloadRequestSchema } from '../request.js';
import { LangSchema, WorkloadLookupSchema } from './building-blocks.js';

/**
 * `workload.history` (spec §9): the revisions Kubernetes keeps of a workload — a Deployment's
 * ReplicaSets (`deployment.kubernetes.io/revision`), a StatefulSet's ControllerRevisions — each
 * read back into the form's fields, newest first. A Job keeps none: its answer is empty.
 */
export const HistoryInputSchema = WorkloadLookupSchema.extend({
  /** The language of a refusal (`kind-ambiguous`, RBAC). */
  lang: LangSchema.default('zh-CN'),
});

export const WorkloadRevisionSchema = z.object({
  revision: z.number().int().min(0),
  /** When Kubernetes made the revision's object; null when it does not say. */
  createdAt: z.string().nullable(),
  /** The revision's pod template as the edit form reads it (`readWorkloadObject`). */
  request: WorkloadRequestSchema,
  /** The revision the workload's template is now (what a rollout heads for). */
  current: z.boolean(),
});

export const HistoryResultSchema = z.array(WorkloadRevisionSchema);

export type WorkloadRevision = z.infer<typeof WorkloadRevisionSchema>;
