import { KubeError } from '@mgpu/kube-client';
import { ClusterNamespacesSchema } from '@mgpu/shared';
import { visibleItems } from '../identity/filtered-reads.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * The namespaces the informers know of (workloads, pods, quotas): what an operator who may not
 * list namespaces cluster-wide can still be offered.
 */
function namespacesInUse(ctx: BffContext): string[] {
  return [
    ...ctx.cluster.workloads.listAll().map((object) => object.metadata?.namespace),
    ...ctx.cluster.pods.list().map((pod) => pod.metadata?.namespace),
    ...(ctx.views.quotas() ?? []).map((quota) => quota.namespace),
  ].flatMap((namespace) => (namespace ? [namespace] : []));
}

/**
 * `cluster.namespaces`: every namespace, listed with the operator's own identity (their RBAC
 * decides; one who may not list namespaces is offered those the informers know of), then cut
 * to those they may list pods in, as the workload list is.
 */
export const clusterNamespaces = publicProcedure
  .output(ClusterNamespacesSchema)
  .query(async ({ ctx }) => {
    const listed = await ctx.cluster.namespaceNames().catch((error: unknown) => {
      if (error instanceof KubeError && error.code === 403) return [];
      throw error;
    });
    const names = [...new Set([...listed, ...namespacesInUse(ctx), 'default'])];
    const visible = await visibleItems(
      ctx,
      names.map((namespace) => ({ namespace })),
    );
    return visible.map((item) => item.namespace).sort();
  });
