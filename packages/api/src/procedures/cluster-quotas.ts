import { ClusterQuotasSchema, mgpuQuotaUsage, QuotasInputSchema } from '@mgpu/shared';
import { visibleItems } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * `cluster.quotas`: the ResourceQuotas on mGPU resources, used / limit per namespace (as the
 * quota's status says: what the API server charges), optionally of one namespace; by namespace,
 * then name. Empty until the informer has listed.
 */
export const clusterQuotas = publicProcedure
  .input(QuotasInputSchema)
  .output(ClusterQuotasSchema)
  .query(async ({ ctx, input }) =>
    // A signed-in operator sees the quotas of the namespaces they may list pods in.
    (
      await visibleItems(
        ctx,
        (ctx.views.quotas() ?? [])
          .filter((quota) => input?.namespace === undefined || quota.namespace === input.namespace)
          .flatMap((quota) => mgpuQuotaUsage(quota) ?? []),
      )
    )
      .slice()
      .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)),
  );
