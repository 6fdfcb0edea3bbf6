import { z } from 'zod';
import { CreatableKindSchema, WorkloadRequestSchema } from '../request.js';
import { LangSchema, WorkloadRefSchema } from './building-blocks.js';

/** The longest resourceVersion an edit may send back. */
export const MAX_RESOURCE_VERSION = 128;

/**
 * `workload.update` (spec §8): the request the form edits, written onto the live object whose
 * `resourceVersion` the form read. A stale one is refused with rule `conflict` (409).
 */
export const UpdateInputSchema = WorkloadRefSchema.extend({
  // etcd's are decimal revisions (≤ 20 digits): opaque, yet never this long.
  resourceVersion: z.string().min(1).max(MAX_RESOURCE_VERSION),
  request: WorkloadRequestSchema,
  /** The operator confirmed changing a workload the console did not make (rule `not-managed`). */
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const RequestChangeSchema = z.object({
  path: z.string(),
  before: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  after: z.union([z.string(), z.number(), z.boolean(), z.null()]),
});

export const UpdateResultSchema = WorkloadRefSchema.extend({
  kind: CreatableKindSchema,
  uid: z.string(),
  /** The object's new version: the next edit sends this one. */
  resourceVersion: z.string(),
  /** The form's fields that changed (empty: the object was already so, nothing was written). */
  changes: z.array(RequestChangeSchema),
});

export type UpdateResult = z.infer<typeof UpdateResultSchema>;
