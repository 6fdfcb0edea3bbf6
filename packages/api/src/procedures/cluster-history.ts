import { ClusterHistorySchema, NoInputSchema } from '@mgpu/shared';
import { requireListNodes } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * `cluster.history`: the last hour (configurable) of per-pool figures, sampled every 10 s, with
 * the usage source the used compute is read from (whether simulated is asked at each call: a
 * Prometheus source learns it from its series' metadata after the start).
 */
export const clusterHistory = publicProcedure
  .input(NoInputSchema)
  .output(ClusterHistorySchema)
  .query(async ({ ctx }) => {
    await requireListNodes(ctx);
    const { kind, simulated } = ctx.usage.source;
    return { ...ctx.history.snapshot(), usage: { source: kind, simulated } };
  });
