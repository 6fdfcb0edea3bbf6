import {
  type CheckOptions,
  type CreatableKind,
  checkRequest,
  describeServerError,
  diffRequests,
  type Lang,
  type NamespaceQuota,
  type NodeState,
  PreviewInputSchema,
  type PreviewResult,
  PreviewResultSchema,
  podChargesQuota,
  podQuotaUsage,
  type QuotaRollout,
  quotasWithout,
  readPodClaims,
  readWorkloadObject,
  releaseAllocation,
  requestVerdict,
  resolveFenceposts,
  type WorkloadRequest,
} from '@mgpu/shared';
import { inventoryOf } from '../cluster/inventory.js';
import { previewWithoutNodes, seesNodes } from '../identity/cluster-view.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { placeReplicas } from './place-replicas.js';
import { ownedBy } from './workload-progress.js';

/** The workload an edit replaces; the update knows its kind, the preview only its name. */
export interface Replacing {
  namespace: string;
  name: string;
  kind?: CreatableKind;
}

/** The edited workload as the informers have it, with its pods that are not on their way out. */
function ownPods(ctx: BffContext, replacing: Replacing) {
  const live = ctx.cluster.workloads.cached(replacing.namespace, replacing.name, replacing.kind);
  const pods =
    live === undefined
      ? []
      : ctx.cluster.pods
          .list()
          .filter((pod) => ownedBy(pod, live) && !pod.metadata?.deletionTimestamp);
  return { live, pods };
}

/** A live Deployment's maxSurge for `replicas`, as its controller resolves it; 0 if it recreates. */
function maxSurgeOf(live: ReturnType<typeof ownPods>['live'], replicas: number): number {
  if (live?.kind !== 'Deployment' || live.spec?.strategy?.type === 'Recreate') return 0;
  return resolveFenceposts(
    live.spec?.strategy?.rollingUpdate?.maxSurge,
    live.spec?.strategy?.rollingUpdate?.maxUnavailable,
    replicas,
  ).maxSurge;
}

/**
 * The rolling update this edit starts, for `quota-exceeded`: only a RollingUpdate Deployment
 * whose pod template changes (a change of replicas alone is a scale, no rollout) overlaps old
 * and new pods, up to maxSurge of them, resolved for the edited replicas as the controller does.
 */
function rolloutOf(
  ctx: BffContext,
  request: WorkloadRequest,
  own: ReturnType<typeof ownPods>,
  now: number,
): QuotaRollout | undefined {
  const maxSurge = maxSurgeOf(own.live, request.replicas);
  if (own.live === undefined || maxSurge === 0) return undefined;
  const before = readWorkloadObject(own.live, { modelLabel: ctx.modelLabel });
  const template = before
    ? diffRequests(before.request, request).some((change) => change.path !== 'replicas')
    : true;
  if (!template) return undefined;
  const replaced = own.pods
    .filter((pod) => podChargesQuota(pod, now))
    .map((pod) => podQuotaUsage(pod.spec ?? {}));
  return { maxSurge, replaced };
}

/**
 * The check with the cluster-aware rules, against the cluster as the informers see it now. An
 * edit (`replacing`) is charged against its namespace's quotas without its own current pods:
 * `status.used` counts them, and the edited pods take their place rather than join them —
 * at the peak of a rolling update beside up to maxSurge of them (`rolloutOf`).
 */
export function checkWithCluster(
  ctx: BffContext,
  request: WorkloadRequest,
  lang: Lang,
  replacing?: Replacing,
) {
  const states = ctx.views.nodeStates();
  const listed = ctx.views.quotas();
  const now = Date.now();
  const own = listed !== undefined && replacing !== undefined ? ownPods(ctx, replacing) : undefined;
  const quotas =
    listed !== undefined && replacing !== undefined && own !== undefined
      ? quotasWithout(listed, replacing.namespace, own.pods, now)
      : listed;
  const rollout = own !== undefined ? rolloutOf(ctx, request, own, now) : undefined;
  const check = checkRequest(request, clusterCheckOptions(ctx, lang, quotas, rollout));
  return { states, check };
}

/**
 * The check's options against the cluster as the informers see it now: its pools and pod slots,
 * the quotas and rollout given, the console's reserved namespaces.
 */
export function clusterCheckOptions(
  ctx: BffContext,
  lang: Lang,
  quotas?: readonly NamespaceQuota[],
  rollout?: QuotaRollout,
): CheckOptions {
  // Until the nodes were listed once the cluster is unknown, not empty: judge the request by
  // its own rules only rather than blame it for a cluster nobody has seen yet (the preview;
  // a write waits for the list, `requireClusterKnown`).
  const known = ctx.cluster.nodes.health.synced;
  // Unset, the namespace-reserved rule keeps DEFAULT_RESERVED_NAMESPACES.
  return {
    lang,
    modelLabel: ctx.modelLabel,
    ...(known
      ? { inventory: inventoryOf(ctx.views.pools(), ctx.views.podSlots(), quotas, rollout) }
      : {}),
    ...(ctx.reservedNamespaces ? { reservedNamespaces: ctx.reservedNamespaces } : {}),
  };
}

/** How long a write waits for the nodes' first list before it is refused as not yet checkable. */
export const CLUSTER_SYNC_WAIT_MS = 5_000;

/**
 * A write (create, update, scale) is never judged without the cluster-aware rules: until the
 * nodes were listed once it waits for that list, briefly, then is refused with a 503
 * `cluster-not-synced` the operator may simply retry. `target` names the workload in the words.
 */
export async function requireClusterKnown(
  ctx: BffContext,
  lang: Lang,
  target: WorkloadRequest,
): Promise<void> {
  const nodes = ctx.cluster.nodes;
  if (await nodes.waitForSync(CLUSTER_SYNC_WAIT_MS)) return;
  throw ruleFailure('SERVICE_UNAVAILABLE', [
    describeServerError('cluster-not-synced', '', nodes.health.lastError ?? '', target, lang),
  ]);
}

/**
 * `checkWithCluster` for a create or an update: a request its own rules refuse is answered at
 * once; any other waits for the cluster to be known (`requireClusterKnown`), so the
 * cluster-aware rules are never skipped.
 */
export async function checkWrite(
  ctx: BffContext,
  request: WorkloadRequest,
  lang: Lang,
  replacing?: Replacing,
): Promise<ReturnType<typeof checkWithCluster>> {
  if (!ctx.cluster.nodes.health.synced) {
    const own = checkWithCluster(ctx, request, lang, replacing);
    if (!own.check.valid) return own;
    await requireClusterKnown(ctx, lang, request);
  }
  return checkWithCluster(ctx, request, lang, replacing);
}

/** The nodes with the cards of `freed` (pods of the edited workload) given back. */
function statesWithout(
  states: readonly NodeState[],
  freed: ReturnType<typeof ownPods>['pods'],
): readonly NodeState[] {
  if (freed.length === 0) return states;
  return states.map((state) => {
    const here = freed.filter((pod) => pod.spec?.nodeName === state.name);
    if (here.length === 0) return state;
    // The shared states are read-only: the node is cloned before its cards are given back.
    const released = structuredClone(state);
    for (const pod of here) {
      const claims = readPodClaims(pod);
      if (claims) releaseAllocation(released, claims);
    }
    return released;
  });
}

/**
 * Where the edited workload's replicas would land while its update runs. A StatefulSet deletes
 * each pod before making its successor, a Recreate Deployment all of them: every old pod's cards
 * are given back. A RollingUpdate Deployment keeps `replicas − maxUnavailable` old pods until
 * new ones are available, and meanwhile makes `maxSurge + maxUnavailable` new ones (Kubernetes'
 * `reconcileNewReplicaSet` / `reconcileOldReplicaSets`): those must fit beside the old pods it
 * keeps, and the rollout goes no further while one of them waits. The later ones take the room
 * of old pods deleted as the first become available.
 */
function placeEdited(
  ctx: BffContext,
  request: WorkloadRequest,
  containers: Parameters<typeof placeReplicas>[2],
  states: readonly NodeState[],
  replacing: Replacing,
): ReturnType<typeof placeReplicas> {
  const all = { first: 0, count: request.replicas };
  const { live, pods } = ownPods(ctx, replacing);
  if (live === undefined || live.kind === 'Job')
    return placeReplicas(ctx, request, containers, states, all);
  const allFreed = statesWithout(states, pods);
  const rolling = live.kind === 'Deployment' && live.spec?.strategy?.type !== 'Recreate';
  if (!rolling) return placeReplicas(ctx, request, containers, allFreed, all);
  const { maxSurge, maxUnavailable } = resolveFenceposts(
    live.spec?.strategy?.rollingUpdate?.maxSurge,
    live.spec?.strategy?.rollingUpdate?.maxUnavailable,
    request.replicas,
  );
  const kept = Math.min(pods.length, Math.max(0, request.replicas - maxUnavailable));
  const early = Math.min(request.replicas, maxSurge + maxUnavailable);
  const beside = placeReplicas(ctx, request, containers, statesWithout(states, pods.slice(kept)), {
    first: 0,
    count: early,
  });
  if (beside.some((row) => !row.ok) || early >= request.replicas) return beside;
  const later = placeReplicas(ctx, request, containers, allFreed, all).filter(
    (row) => row.replica >= early,
  );
  return [...beside, ...later];
}

/** The check with the cluster-aware rules, plus where each replica would land right now. */
export function previewWorkload(
  ctx: BffContext,
  request: WorkloadRequest,
  lang: Lang,
  replacing?: Replacing,
): PreviewResult {
  const checked = checkWithCluster(ctx, request, lang, replacing);
  const { check } = checked;
  const { states } = checked;
  // Placement needs every GPU container's shares, even while (say) the name is still empty.
  const gpuContainers = request.containers.filter(
    (c) => c.gpu !== undefined && c.gpu.type !== 'none',
  );
  const replicas =
    gpuContainers.length !== check.containers.length
      ? []
      : replacing
        ? placeEdited(ctx, request, check.containers, states, replacing)
        : placeReplicas(ctx, request, check.containers, states, {
            first: 0,
            count: request.replicas,
          });
  const { manifest, ...rest } = check;
  return {
    ...rest,
    ...(manifest ? { manifest: manifest as unknown as Record<string, unknown> } : {}),
    placement: { cardPolicy: ctx.cardPolicy, replicas },
    verdict: requestVerdict({ check, wanted: request.replicas, placement: replicas }),
  };
}

/**
 * `workload.preview`: request → check result with cluster-aware rules, manifest and placement;
 * the placement without nodes, cards and counts for an operator who may not list nodes.
 */
export const workloadPreview = publicProcedure
  .input(PreviewInputSchema)
  .output(PreviewResultSchema)
  .query(async ({ ctx, input }) => {
    let preview = previewWorkload(ctx, input.request, input.lang, input.replacing);
    // Before the nodes were listed once, no node would take any replica: "waiting" would be a
    // guess. A request its own rules accept waits for the list briefly, as a write does, then
    // is answered with the same retryable 503 (the form says it could not check).
    if (!ctx.cluster.nodes.health.synced && preview.verdict.verdict !== 'invalid') {
      await requireClusterKnown(ctx, input.lang, input.request);
      preview = previewWorkload(ctx, input.request, input.lang, input.replacing);
    }
    return (await seesNodes(ctx)) ? preview : previewWithoutNodes(preview);
  });
