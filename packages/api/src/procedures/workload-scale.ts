import {
  checkScale,
  checkWorkloadTarget,
  readWorkloadObject,
  ScaleInputSchema,
  ScaleResultSchema,
  type WorkloadRequest,
} from '@mgpu/shared';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { clusterCheckOptions, requireClusterKnown } from './workload-preview.js';
import { writeChecked } from './workload-target.js';

/**
 * `workload.scale` (spec §8): a Deployment's or StatefulSet's replicas, a Job's parallelism
 * (its completions cannot change), as a merge patch of that one field: nothing else of the
 * object is sent, so a scale never overwrites anyone's edit. The count answers to the rules
 * create applies to it (`checkScale`: `namespace-reserved`, `replicas-range`,
 * `replicas-exceed-cluster` for the workload read back), never without the cluster's nodes.
 * As delete: without `kind`, a name two kinds share is `kind-ambiguous`; a workload the console
 * did not make is `not-managed` unless `force`; the patch carries the checked object's uid and
 * resourceVersion, so one put in its place after the check is never the one scaled.
 */
export const workloadScale = publicProcedure
  .input(ScaleInputSchema)
  .output(ScaleResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { namespace, name, replicas, force, lang } = input;
    // The rules' words name the workload; its containers are read back below.
    const target: WorkloadRequest = { name, namespace, replicas, containers: [] };
    const options = () => clusterCheckOptions(ctx, lang);
    // A reserved namespace is refused before anything is read there.
    const reserved = checkWorkloadTarget(namespace, options());
    if (reserved.length > 0) throw ruleFailure('BAD_REQUEST', reserved);
    await requireClusterKnown(ctx, lang, target);
    const scaled = await writeChecked(
      ctx,
      { namespace, name, kind: input.kind },
      { force, target, lang },
      async (live, version) => {
        const workload =
          readWorkloadObject(live, { modelLabel: ctx.modelLabel })?.request ?? target;
        const errors = checkScale(workload, replicas, options());
        if (errors.length > 0) throw ruleFailure('BAD_REQUEST', errors);
        return ctx.cluster.workloads.scale(live.kind, namespace, name, replicas, version);
      },
    );
    return {
      kind: scaled.kind,
      namespace,
      name,
      replicas,
      resourceVersion: scaled.metadata?.resourceVersion ?? '',
    };
  });
