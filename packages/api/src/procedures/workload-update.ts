import { toKubeError } from '@mgpu/kube-client';
import {
  applyRequestToObject,
  describeServerError,
  diffRequests,
  echoInput,
  type Lang,
  type RuleError,
  readWorkloadObject,
  UpdateInputSchema,
  type UpdateResult,
  UpdateResultSchema,
  type WorkloadRequest,
  workloadKindOf,
} from '@mgpu/shared';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { refusal } from './workload-create.js';
import { checkWrite } from './workload-preview.js';
import { requireManaged } from './workload-target.js';

/**
 * Writes tried when the API server's 409 came from a status write between read and PUT: during a
 * rollout on a real cluster the controllers write status many times a second.
 */
const UPDATE_ATTEMPTS = 10;

/**
 * Rule `conflict` (spec §8): the object moved on since the form read it; nothing was written.
 * `sent` is the form's resourceVersion, quoted back only as far as `echoInput` allows.
 */
const conflict = (request: WorkloadRequest, lang: Lang, detail: string, sent = '') =>
  ruleFailure('CONFLICT', [
    describeServerError('conflict', 'resourceVersion', detail, request, lang, undefined, sent),
  ]);

const immutable = (request: WorkloadRequest, lang: Lang, paths: string[], detail: string) =>
  ruleFailure(
    'UNPROCESSABLE_CONTENT',
    paths.map((path) => describeServerError('immutable-field', path, detail, request, lang)),
  );

const resultOf = (object: LiveWorkload, changes: ReturnType<typeof diffRequests>) => ({
  kind: object.kind,
  namespace: object.metadata?.namespace ?? '',
  name: object.metadata?.name ?? '',
  uid: object.metadata?.uid ?? '',
  resourceVersion: object.metadata?.resourceVersion ?? '',
  changes,
});

/** An edit as `workload.update` and `workload.rollback` send it to `updateWorkload`. */
export interface WorkloadEdit {
  namespace: string;
  name: string;
  resourceVersion: string;
  request: WorkloadRequest;
  force: boolean;
  lang: Lang;
}

/**
 * `workload.update` (spec §8): re-validates the edited request exactly as `workload.create`
 * does, then writes it onto the live object it was read from — only the form's fields
 * (`applyRequestToObject`). The form's resourceVersion is stale when the spec changed since
 * (its generation moved) or the console's labels did (status writes and controllers'
 * annotations do not count) or this process never saw it: refused with `conflict` (409) before
 * anything is sent. The PUT carries the version just read; when the API server refuses it (409)
 * the object is read again and, if only its status moved, the edit is written onto that.
 * `workload.rollback` writes a kept revision's fields through here too: one update path.
 */
export async function updateWorkload(ctx: BffContext, edit: WorkloadEdit): Promise<UpdateResult> {
  const { namespace, name, resourceVersion, request, force, lang } = edit;
  // A name or namespace is the object's identity: another one is a create, not an edit.
  const moved = (['namespace', 'name'] as const).filter((field) => request[field] !== edit[field]);
  if (moved.length > 0)
    throw immutable(
      request,
      lang,
      moved,
      `${namespace}/${name} → ${echoInput(request.namespace)}/${echoInput(request.name)}`,
    );
  const kind = workloadKindOf(request);
  // Its own pods are already in the quota's used: the edit is charged as their replacement.
  const { check } = await checkWrite(ctx, request, lang, { namespace, name, kind });
  if (!check.valid) throw ruleFailure('BAD_REQUEST', check.errors as RuleError[]);

  for (let attempt = 1; ; attempt += 1) {
    const live = await ctx.cluster.workloads.read(kind, namespace, name).catch((error: unknown) => {
      throw kubeFailure(error, lang);
    });
    const liveVersion = live.metadata?.resourceVersion ?? '';
    // Checked on every read: an object put in its place meanwhile answers to it as well.
    requireManaged(live, force, request, lang);
    // Stale: the spec or the console's labels moved on since the form read it (or the version
    // is unknown here). Status writes alone do not count: the edit lands on the live object.
    if (ctx.cluster.workloads.specChangedSince(live, resourceVersion))
      throw conflict(request, lang, liveVersion, resourceVersion);
    const before = readWorkloadObject(live, { modelLabel: ctx.modelLabel });
    const changes = before ? diffRequests(before.request, request) : [];
    if (before !== undefined && changes.length === 0) return resultOf(live, changes);
    // Kubernetes keeps a Job's pod template fixed: only its parallelism (replicas) may change.
    const fixed = kind === 'Job' ? changes.filter((change) => change.path !== 'replicas') : [];
    if (fixed.length > 0)
      throw immutable(
        request,
        lang,
        fixed.map((change) => change.path),
        "a Job's pod template (spec.template) cannot change",
      );

    const next = applyRequestToObject(
      JSON.parse(JSON.stringify(live)) as Record<string, unknown>,
      request,
      check.containers,
      { modelLabel: ctx.modelLabel },
    );
    // Conditional on the version just read: a change in between is the API server's 409.
    next.metadata = { ...(next.metadata as object), resourceVersion: liveVersion };
    try {
      const updated = await ctx.cluster.workloads.replace(kind, namespace, name, next);
      return resultOf(updated, changes);
    } catch (error) {
      const kube = toKubeError(error);
      if (kube.code !== 409) throw refusal(kube, request, lang);
      // A controller's status write between the read and the PUT: read again; the check above
      // tells it from a spec edit. Past a few tries the object is too busy: conflict.
      if (attempt >= UPDATE_ATTEMPTS) throw conflict(request, lang, kube.message);
    }
  }
}

/** `workload.update` (spec §8): `updateWorkload` with the form's edit. */
export const workloadUpdate = publicProcedure
  .input(UpdateInputSchema)
  .output(UpdateResultSchema)
  .mutation(({ ctx, input }) => updateWorkload(ctx, input));
