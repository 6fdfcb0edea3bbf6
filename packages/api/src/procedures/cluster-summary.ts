import { ClusterSummarySchema, NoInputSchema } from '@mgpu/shared';
import { describeSource } from '../cluster/connection.js';
import { requireListNodes } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/** `cluster.summary`: server version and, per pool (model × policy), cards, compute and memory. */
export const clusterSummary = publicProcedure
  .input(NoInputSchema)
  .output(ClusterSummarySchema)
  .query(async ({ ctx }) => {
    await requireListNodes(ctx);
    const version = await ctx.cluster.version().catch((error: unknown) => {
      throw kubeFailure(error);
    });
    const nodes = ctx.cluster.nodes.list();
    return {
      version: version.gitVersion,
      source: describeSource(ctx.source),
      nodes: nodes.length,
      pools: ctx.views.pools(),
    };
  });
