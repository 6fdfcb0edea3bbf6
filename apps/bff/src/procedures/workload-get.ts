import { readWorkloadObject, WorkloadDetailSchema, WorkloadRefSchema } from '@mgpu/shared';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { summarizeDeployment } from './workload-list.js';

/** `workload.get`: one Deployment, read back into the form's request, with its manifest. */
export const workloadGet = publicProcedure
  .input(WorkloadRefSchema)
  .output(WorkloadDetailSchema)
  .query(async ({ ctx, input }) => {
    const deployment = await ctx.cluster
      .readDeployment(input.namespace, input.name)
      .catch((error: unknown) => {
        throw kubeFailure(error);
      });
    const read = readWorkloadObject(
      { ...deployment, kind: 'Deployment' },
      { modelLabel: ctx.modelLabel },
    );
    return {
      ...summarizeDeployment(deployment, ctx.modelLabel),
      request: read?.request ?? {
        name: input.name,
        namespace: input.namespace,
        replicas: 1,
        containers: [],
      },
      manifest: JSON.parse(JSON.stringify(deployment)) as Record<string, unknown>,
    };
  });
