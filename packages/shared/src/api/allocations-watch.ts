import { z } from 'zod';
import { AllocationRecordSchema } from '../allocations.js';
import { SnapshotPartSchema } from '../snapshot-parts.js';
import { ListEventTypeSchema } from './building-blocks.js';

export const AllocationFilterSchema = z.object({
  namespace: z.string().optional(),
  workload: z.string().optional(),
  node: z.string().optional(),
  pod: z.string().optional(),
  /** Resume after this event id (tRPC passes the SSE `Last-Event-ID` here). */
  lastEventId: z.string().nullish(),
});

/** `allocations.watch`: every allocation record, or those the filters keep. */
export const AllocationsWatchInputSchema = AllocationFilterSchema.optional();

export const AllocationEventSchema = z.object({
  /**
   * `snapshot` replaces everything the subscriber had (a large one comes in parts: `part` and
   * `more`, see `SnapshotPartSchema`); `upsert`/`delete` change single records.
   */
  type: ListEventTypeSchema,
  records: z.array(AllocationRecordSchema),
  at: z.string(),
  ...SnapshotPartSchema.shape,
});

export type AllocationFilter = z.infer<typeof AllocationFilterSchema>;
export type AllocationEvent = z.infer<typeof AllocationEventSchema>;
