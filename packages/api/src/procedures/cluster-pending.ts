import {
  indexAfterCursor,
  PendingInputSchema,
  PendingPodsSchema,
  pendingPodCursor,
} from '@mgpu/shared';
import { pendingPodsFor, preparedPods } from '../live/pending-cut.js';
import { publicProcedure } from '../trpc/init.js';
import { preparedOrParsed } from '../trpc/prepared-output.js';

/**
 * `cluster.pending` (spec §8): every GPU pod the scheduler has not placed, and why — one object
 * per pod, made from the shared grouped view (`PendingPodsView`), so a call costs a lookup, not
 * a placement. `limit` and `after` page it; without them it is every pod, as the spec has it.
 * The dashboard reads the groups (`cluster.pendingGroups`, `cluster.pendingWatch`) instead.
 */
export const clusterPending = publicProcedure
  .input(PendingInputSchema)
  .output(preparedOrParsed(PendingPodsSchema))
  .query(async ({ ctx, input }) => {
    const pods = await pendingPodsFor(ctx, input?.namespace);
    if (input?.limit === undefined && input?.after === undefined) return pods;
    const start = indexAfterCursor(pods, input.after, pendingPodCursor);
    const end = input.limit === undefined ? undefined : start + input.limit;
    return preparedPods(pods.slice(start, end));
  });
