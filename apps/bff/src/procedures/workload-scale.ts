import { ScaleInputSchema, ScaleResultSchema } from '@mgpu/shared';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/**
 * `workload.scale` (spec §8): a Deployment's or StatefulSet's replicas, a Job's parallelism
 * (its completions cannot change), as a merge patch of that one field: nothing else of the
 * object is sent, so a scale never overwrites anyone's edit.
 */
export const workloadScale = publicProcedure
  .input(ScaleInputSchema)
  .output(ScaleResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { namespace, name, replicas, lang } = input;
    const fail = (error: unknown) => {
      throw kubeFailure(error, lang);
    };
    const live = await ctx.cluster.workloads.find(namespace, name, input.kind).catch(fail);
    const scaled = await ctx.cluster.workloads
      .scale(live.kind, namespace, name, replicas)
      .catch(fail);
    return {
      kind: scaled.kind,
      namespace,
      name,
      replicas,
      resourceVersion: scaled.metadata?.resourceVersion ?? '',
    };
  });
