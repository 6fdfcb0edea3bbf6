import { z } from 'zod';
import { SnapshotPartSchema } from '../snapshot-parts.js';
import { ListEventTypeSchema } from './building-blocks.js';
import { WorkloadSummarySchema } from './workload-list.js';

export const WorkloadWatchInputSchema = z
  .object({ namespace: z.string().optional(), lastEventId: z.string().nullish() })
  .optional();

/**
 * `workload.watch`: the operator's workloads as `workload.list` has them, live. `snapshot`
 * replaces the subscriber's list; `upsert` adds or replaces workloads by kind, namespace and
 * name; `delete` removes them.
 */
export const WorkloadListEventSchema = z.object({
  type: ListEventTypeSchema,
  workloads: z.array(WorkloadSummarySchema),
  /** A large snapshot comes in parts (`SnapshotPartSchema`). */
  ...SnapshotPartSchema.shape,
});

export type WorkloadListEvent = z.infer<typeof WorkloadListEventSchema>;
