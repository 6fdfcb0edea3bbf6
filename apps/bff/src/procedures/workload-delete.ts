import {
  DeleteInputSchema,
  describeServerError,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  WorkloadRefSchema,
} from '@mgpu/shared';
import { z } from 'zod';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/**
 * `workload.delete`: removes the Deployment, StatefulSet or Job; what it owns goes with it
 * (foreground).
 * Spec §8: only what the console made (its managed-by label) unless the operator confirmed
 * with `force` — a console with delete rights must not be a way to remove anyone's workload.
 */
export const workloadDelete = publicProcedure
  .input(DeleteInputSchema)
  .output(WorkloadRefSchema.extend({ deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    const { namespace, name, force, lang } = input;
    // The object of the named kind, or the first kind (Deployment, StatefulSet, Job) with the name.
    const deployment = await ctx.cluster.workloads
      .find(namespace, name, input.kind)
      .catch((error: unknown) => {
        throw kubeFailure(error, lang);
      });
    if (!force) {
      if (deployment.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY) {
        throw ruleFailure('PRECONDITION_FAILED', [
          describeServerError(
            'not-managed',
            '',
            '',
            { name, namespace, replicas: 1, containers: [] },
            lang,
          ),
        ]);
      }
    }
    await ctx.cluster.workloads.delete(deployment.kind, namespace, name).catch((error: unknown) => {
      throw kubeFailure(error, lang);
    });
    return { namespace, name, deleted: true as const };
  });
