import {
  checkWorkloadTarget,
  DeleteInputSchema,
  DeleteResultSchema,
  type WorkloadRequest,
} from '@mgpu/shared';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { writeChecked } from './workload-target.js';

/**
 * `workload.delete`: removes the Deployment, StatefulSet or Job; what it owns goes with it
 * (foreground).
 * Spec §8: only what the console made (its managed-by label) unless the operator confirmed
 * with `force` — a console with delete rights must not be a way to remove anyone's workload —
 * and never in a reserved namespace (`namespace-reserved`), `force` or not.
 * The delete carries the checked object's uid and resourceVersion as preconditions, so an
 * object put in its place after the check (same name, no label) is never the one removed.
 */
export const workloadDelete = publicProcedure
  .input(DeleteInputSchema)
  .output(DeleteResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { namespace, name, force, lang } = input;
    // The server rules' texts name the workload; a delete has no form beyond that.
    const target: WorkloadRequest = { name, namespace, replicas: 1, containers: [] };
    // The cluster's own namespaces, `force` or not, whatever RBAC would allow.
    const reserved = checkWorkloadTarget(namespace, {
      lang,
      ...(ctx.reservedNamespaces ? { reservedNamespaces: ctx.reservedNamespaces } : {}),
    });
    if (reserved.length > 0) throw ruleFailure('BAD_REQUEST', reserved);
    return writeChecked(
      ctx,
      { namespace, name, kind: input.kind },
      { force, target, lang },
      (workload, version) =>
        ctx.cluster.workloads
          .delete(workload.kind, namespace, name, version)
          .then(() => ({ namespace, name, deleted: true as const })),
    );
  });
