import { ClusterHistorySchema, NoInputSchema } from '@mgpu/shared';
import { requireListNodes } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';

/** `cluster.history`: the last hour (configurable) of per-pool figures, sampled every 10 s. */
export const clusterHistory = publicProcedure
  .input(NoInputSchema)
  .output(ClusterHistorySchema)
  .query(async ({ ctx }) => {
    await requireListNodes(ctx);
    return ctx.history.snapshot();
  });
