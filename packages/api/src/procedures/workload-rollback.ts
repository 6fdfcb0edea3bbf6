import { describeServerError, RollbackInputSchema, UpdateResultSchema } from '@mgpu/shared';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { historyOf } from './workload-history.js';
import { resolveWorkload } from './workload-target.js';
import { updateWorkload } from './workload-update.js';

/**
 * `workload.rollback` (spec §9): the form's fields of a revision `workload.history` lists,
 * written through `updateWorkload` — the same conflict check on the resourceVersion the page
 * read, the rules, the quota and the audit line as an edit. Only the pod template goes back (as
 * `kubectl rollout undo`): name, namespace and replicas stay the live ones. Kubernetes then
 * finds the revision's own ReplicaSet or ControllerRevision again, so the pods that still run it
 * stay where they are.
 */
export const workloadRollback = publicProcedure
  .input(RollbackInputSchema)
  .output(UpdateResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { namespace, name, kind, revision, resourceVersion, force, lang } = input;
    const named = { name, namespace, replicas: 1, containers: [] };
    const live = await resolveWorkload(ctx, { namespace, name, kind }, named, lang);
    const kept = (await historyOf(ctx, live, lang)).find((each) => each.revision === revision);
    if (kept === undefined)
      throw ruleFailure('NOT_FOUND', [
        describeServerError('revision-not-found', 'revision', String(revision), named, lang),
      ]);
    return updateWorkload(ctx, {
      namespace,
      name,
      resourceVersion,
      request: kept.request,
      force,
      lang,
    });
  });
