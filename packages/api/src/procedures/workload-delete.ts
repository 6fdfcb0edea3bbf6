import { toKubeError } from '@mgpu/kube-client';
import {
  checkWorkloadTarget,
  DeleteInputSchema,
  DeleteResultSchema,
  describeServerError,
  type WorkloadRequest,
} from '@mgpu/shared';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { requireManaged, resolveWorkload } from './workload-target.js';

/**
 * Reads again when only the object's version moved between the check and the delete: during a
 * rollout on a real cluster the controllers write status many times a second.
 */
const DELETE_ATTEMPTS = 10;

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
    let checked: LiveWorkload | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const workload = await resolveWorkload(
        ctx,
        { namespace, name, kind: checked?.kind ?? input.kind },
        target,
        lang,
      );
      const { uid = '', resourceVersion = '' } = workload.metadata ?? {};
      if (checked !== undefined && uid !== checked.metadata?.uid) {
        const detail = `replaced since it was checked: uid ${checked.metadata?.uid} → ${uid}`;
        throw ruleFailure('CONFLICT', [describeServerError('conflict', '', detail, target, lang)]);
      }
      checked = workload;
      requireManaged(workload, force, target, lang);
      try {
        await ctx.cluster.workloads.delete(workload.kind, namespace, name, {
          uid,
          resourceVersion,
        });
        return { namespace, name, deleted: true as const };
      } catch (error) {
        const kube = toKubeError(error);
        if (kube.code !== 409) throw kubeFailure(error, lang);
        // Controllers' status writes move the version: read again, and the same object, checked
        // again, may go; a different one (new uid) is the conflict above.
        if (attempt >= DELETE_ATTEMPTS)
          throw ruleFailure('CONFLICT', [
            describeServerError('conflict', '', kube.message, target, lang),
          ]);
      }
    }
  });
