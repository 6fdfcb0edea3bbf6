import {
  type CreatableKind,
  describeServerError,
  isManagedByConsole,
  type Lang,
  type WorkloadRequest,
} from '@mgpu/shared';
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
