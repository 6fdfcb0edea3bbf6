import type { V1Deployment } from '@kubernetes/client-node';
import {
  evaluateRequest,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  readWorkloadObject,
  type WorkloadSummary,
  WorkloadSummarySchema,
} from '@mgpu/shared';
import { z } from 'zod';
import { publicProcedure } from '../trpc/init.js';

/** A Deployment as the console lists it, its GPU shares read back by the shared reader. */
export function summarizeDeployment(deployment: V1Deployment, modelLabel: string): WorkloadSummary {
  const read = readWorkloadObject({ ...deployment, kind: 'Deployment' }, { modelLabel });
  const shares = read ? evaluateRequest(read.request).shares : [];
  return {
    namespace: deployment.metadata?.namespace ?? 'default',
    name: deployment.metadata?.name ?? '',
    uid: deployment.metadata?.uid ?? '',
    createdAt: deployment.metadata?.creationTimestamp
      ? new Date(deployment.metadata.creationTimestamp).toISOString()
      : null,
    replicas: deployment.spec?.replicas ?? 1,
    readyReplicas: deployment.status?.readyReplicas ?? 0,
    availableReplicas: deployment.status?.availableReplicas ?? 0,
    managedByConsole: deployment.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY,
    computePolicy: read?.computePolicy ?? null,
    containers: shares,
  };
}

/** `workload.list`: the Deployments that use GPUs (or that the console made), newest first. */
export const workloadList = publicProcedure
  .input(z.object({ namespace: z.string().optional() }).optional())
  .output(z.array(WorkloadSummarySchema))
  .query(({ ctx, input }) =>
    ctx.cluster.deployments
      .list()
      .filter((d) => !input?.namespace || d.metadata?.namespace === input.namespace)
      .map((deployment) => summarizeDeployment(deployment, ctx.modelLabel))
      .filter((summary) => summary.managedByConsole || summary.containers.length > 0)
      .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? '')),
  );
