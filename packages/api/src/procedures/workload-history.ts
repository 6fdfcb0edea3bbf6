import {
  HistoryInputSchema,
  HistoryResultSchema,
  type Lang,
  workloadRevisions,
} from '@mgpu/shared';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { resolveWorkload } from './workload-target.js';

/** The revisions Kubernetes keeps of `workload`, read as the operator (their RBAC decides). */
export async function historyOf(ctx: BffContext, workload: LiveWorkload, lang: Lang) {
  const objects = await ctx.cluster.workloads.revisionObjects(workload).catch((error: unknown) => {
    throw kubeFailure(error, lang);
  });
  return workloadRevisions(workload, objects, { modelLabel: ctx.modelLabel });
}

/**
 * `workload.history` (spec §9): the workload (the one of that name, or of the kind the input
 * names: with several kinds of that name, `kind-ambiguous` as `workload.rollback` says) and
 * the revisions Kubernetes keeps of it, newest first. A Job keeps
 * none, so its history is empty: there is nothing to roll back to, and the page says so.
 */
export const workloadHistory = publicProcedure
  .input(HistoryInputSchema)
  .output(HistoryResultSchema)
  .query(async ({ ctx, input }) => {
    const { namespace, name, kind, lang } = input;
    const named = { name, namespace, replicas: 1, containers: [] };
    const workload = await resolveWorkload(ctx, { namespace, name, kind }, named, lang);
    return historyOf(ctx, workload, lang);
  });
