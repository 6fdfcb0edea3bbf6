import { WorkloadRefSchema } from '@mgpu/shared';
import { z } from 'zod';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/** `workload.delete`: removes the Deployment; its ReplicaSets and pods go with it (foreground). */
export const workloadDelete = publicProcedure
  .input(WorkloadRefSchema)
  .output(WorkloadRefSchema.extend({ deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await ctx.cluster.deleteDeployment(input.namespace, input.name).catch((error: unknown) => {
      throw kubeFailure(error);
    });
    return { ...input, deleted: true as const };
  });
