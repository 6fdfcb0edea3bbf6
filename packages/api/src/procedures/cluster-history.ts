import { ClusterHistorySchema, NoInputSchema } from '@mgpu/shared';
import { requireListNodes } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * `cluster.history`: the last hour (configurable) of per-pool figures, sampled every 10 s, with
 * the usage source the used compute is read from (whether simulated is asked at each call: a
 * Prometheus source learns it from its series' metadata after the start). Through Prometheus,
 * once it holds the console's own series, the figures are those it kept (issue 30: they outlive
 * the process); else the console's own history.
 */
export const clusterHistory = publicProcedure
  .input(NoInputSchema)
  .output(ClusterHistorySchema)
  .query(async ({ ctx }) => {
    await requireListNodes(ctx);
    const { kind, simulated } = ctx.usage.source;
    const ring = await ctx.history.snapshot();
    const fromPrometheus = await ctx.prometheusHistory?.snapshot(ring);
    return fromPrometheus
      ? { ...fromPrometheus, source: 'prometheus' as const, usage: { source: kind, simulated } }
      : { ...ring, source: 'console' as const, usage: { source: kind, simulated } };
  });
