import { setTimeout as sleep } from 'node:timers/promises';
import { toKubeError } from '@mgpu/kube-client';
import {
  type CreatableKind,
  describeServerError,
  isManagedByConsole,
  type Lang,
  type WorkloadRequest,
} from '@mgpu/shared';
import { TRPCError } from '@trpc/server';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import type { BffContext } from '../trpc/context.js';
import { ruleFailure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/**
 * The existing workload a mutation (delete, scale) acts on, read from the API server: the one
 * of the named kind; without a kind, the one Deployment, StatefulSet or Job of that name — with
 * several, which one is the operator's choice (rule `kind-ambiguous`, 400), never the first found.
 */
export async function resolveWorkload(
  ctx: BffContext,
  ref: { namespace: string; name: string; kind?: CreatableKind | undefined },
  target: WorkloadRequest,
  lang: Lang,
): Promise<LiveWorkload> {
  const { namespace, name, kind } = ref;
  const found = await (kind
    ? ctx.cluster.workloads.read(kind, namespace, name).then((object) => [object])
    : ctx.cluster.workloads.findEvery(namespace, name)
  ).catch((error: unknown) => {
    throw kubeFailure(error, lang);
  });
  const [only, ...others] = found;
  if (only !== undefined && others.length === 0) return only;
  const kinds = found.map((object) => object.kind).join(', ');
  throw ruleFailure('BAD_REQUEST', [
    describeServerError('kind-ambiguous', 'kind', kinds, target, lang),
  ]);
}

/**
 * Spec §8: a console with write rights must not be a way to change anyone's workload, so every
 * mutation of an existing object (update, scale, delete) refuses one without the console's
 * managed-by label (rule `not-managed`, 412) unless the operator confirmed with `force`.
 */
export function requireManaged(
  workload: LiveWorkload,
  force: boolean,
  target: WorkloadRequest,
  lang: Lang,
): void {
  if (force || isManagedByConsole(workload)) return;
  throw ruleFailure('PRECONDITION_FAILED', [
    describeServerError('not-managed', 'force', workload.kind, target, lang),
  ]);
}

/**
 * Reads again when only the object's version moved between the check and the write: during a
 * rollout on a real cluster the controllers write status many times a second.
 */
const CHECKED_WRITE_ATTEMPTS = 10;
/**
 * The wait before the second try, doubled each try up to the most, with jitter: controllers
 * writing status in a burst get room, and two writers of one object do not retry in step.
 */
const CHECKED_WRITE_BACKOFF_MS = 10;
const CHECKED_WRITE_BACKOFF_MAX_MS = 400;

const backoff = (attempt: number) =>
  Math.min(CHECKED_WRITE_BACKOFF_MS * 2 ** (attempt - 1), CHECKED_WRITE_BACKOFF_MAX_MS) *
  (0.5 + Math.random() / 2);

/** The checked object's identity, sent with the write so the API server refuses any other (409). */
export interface CheckedVersion {
  uid: string;
  resourceVersion: string;
}

/**
 * A write (delete, scale) to the very object that was checked: resolved (`kind-ambiguous`),
 * guarded (`not-managed`), then `write` with its uid and resourceVersion as preconditions. On
 * the API server's 409 it is resolved and checked again: the same object (uid) whose version
 * only moved is written again, one put in its place after the check is the rule `conflict` —
 * a kubectl-made workload of the same name is never changed without `force`.
 */
export async function writeChecked<T>(
  ctx: BffContext,
  ref: { namespace: string; name: string; kind?: CreatableKind | undefined },
  guard: { force: boolean; target: WorkloadRequest; lang: Lang },
  write: (workload: LiveWorkload, version: CheckedVersion) => Promise<T>,
): Promise<T> {
  const { force, target, lang } = guard;
  let checked: LiveWorkload | undefined;
  for (let attempt = 1; ; attempt += 1) {
    const workload = await resolveWorkload(
      ctx,
      { ...ref, kind: checked?.kind ?? ref.kind },
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
      return await write(workload, { uid, resourceVersion });
    } catch (error) {
      // The write's own refusals (a rule) stand as they are.
      if (error instanceof TRPCError) throw error;
      const kube = toKubeError(error);
      if (kube.code !== 409) throw kubeFailure(error, lang);
      if (attempt >= CHECKED_WRITE_ATTEMPTS)
        throw ruleFailure('CONFLICT', [
          describeServerError('conflict', '', kube.message, target, lang),
        ]);
    }
    await sleep(backoff(attempt));
  }
}
