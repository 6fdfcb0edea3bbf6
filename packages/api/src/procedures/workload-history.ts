import { HistoryInputSchema, HistoryResultSchema, workloadRevisions } from '@mgpu/shared';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/** The revisions Kubernetes keeps of `workload`, read as the operator (their RBAC decides). */
export async function historyOf(ctx: BffContext, workload: LiveWorkload, lang: 'en' | 'zh-CN') {
  const objects = await ctx.cluster.workloads.revisionObjects(workload).catch((error: unknown) => {
    throw kubeFailure(error, lang);
  });
  return workloadRevisions(workload, objects, { modelLabel: ctx.modelLabel });
}

/**
 * `workload.history` (spec §9): the workload (the first kind of that name unless the input names
 * one, as `workload.get`) and the revisions Kubernetes keeps of it, newest first. A Job keeps
 * none, so its history is empty: there is nothing to roll back to, and the page says so.
 */
export const workloadHistory = publicProcedure
  .input(HistoryInputSchema)
  .output(HistoryResultSchema)
  .query(async ({ ctx, input }) => {
    const workload = await ctx.cluster.workloads
      .find(input.namespace, input.name, input.kind)
      .catch((error: unknown) => {
        throw kubeFailure(error);
      });
    return historyOf(ctx, workload, 'en');
  });
