import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import type { SharedInformer } from '@mgpu/kube-client';
import {
  type AllocationRecord,
  isPodReady,
  type ProgressStage,
  placePod,
  podDemandOf,
  podQuotaUsage,
  type Rejection,
  readRollout,
  schedulerCards,
  unschedulableCondition,
  type WorkloadProgress,
  WorkloadProgressInputSchema,
  WorkloadProgressSchema,
  workloadOfPod,
  workloadState,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import { progressWithoutNodes, seesNodes } from '../identity/cluster-view.js';
import { requireListPods } from '../identity/filtered-reads.js';
import { ChangeSignal } from '../live/change-signal.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { trackedStream } from '../trpc/tracked-stream.js';

/**
 * A pod of this workload, by the one ownership reading (`workloadOfPod`): a Deployment's
 * through its ReplicaSet, a StatefulSet's or Job's as their controller.
 */
export function ownedBy(pod: V1Pod, workload: LiveWorkload): boolean {
  const owner = workloadOfPod(pod);
  return (
    pod.metadata?.namespace === workload.metadata?.namespace &&
    owner?.kind === workload.kind &&
    owner.name === workload.metadata?.name
  );
}

const unschedulableReason = (pod: V1Pod) => unschedulableCondition(pod)?.message ?? null;

/** The same placement the scheduler ran, asked again now: why no node takes the pod. */
function rejectionsOf(ctx: BffContext, pod: V1Pod): { rejections?: Rejection[] } {
  const { modelLabel, cardPolicy } = ctx;
  const result = placePod(podDemandOf(pod, { modelLabel }), ctx.views.nodeStates(), {
    cardPolicy,
    modelLabel,
  });
  return result.ok ? {} : { rejections: result.rejections };
}

/**
 * Whether one more pod of the workload's template would be refused by its namespace's quotas,
 * charged as the API server charges it (`podQuotaUsage`): the rollout then stalls on quota.
 */
export function quotaRefusesNewPod(ctx: BffContext, workload: LiveWorkload): boolean {
  const namespace = workload.metadata?.namespace;
  const charge = podQuotaUsage(workload.spec?.template?.spec ?? {});
  return (ctx.views.quotas() ?? []).some(
    (quota) =>
      quota.namespace === namespace &&
      Object.entries(charge).some(
        ([resource, amount]) =>
          quota.hard[resource] !== undefined &&
          amount > 0 &&
          (quota.used[resource] ?? 0) + amount > (quota.hard[resource] ?? 0),
      ),
  );
}

/** The workload's live timeline: created → scheduled → running → verified (or failed, and why). */
export function workloadProgress(
  ctx: BffContext,
  namespace: string,
  name: string,
): WorkloadProgress {
  const deployment = ctx.cluster.workloads.cached(namespace, name);
  if (deployment === undefined) {
    return {
      namespace,
      name,
      exists: false,
      outcome: 'absent',
      stages: [],
      replicas: { desired: 0, ready: 0 },
      pods: [],
      records: [],
    };
  }
  // A Job's pods at once are its parallelism (manifest.ts).
  const desired =
    (deployment.kind === 'Job' ? deployment.spec?.parallelism : deployment.spec?.replicas) ?? 1;
  const pods = ctx.cluster.pods
    .list()
    .filter((pod) => ownedBy(pod, deployment) && !pod.metadata?.deletionTimestamp);
  const podNames = new Set(pods.map((pod) => pod.metadata?.name));
  const records: AllocationRecord[] = ctx.allocations
    .snapshot({ namespace })
    .filter((record) => podNames.has(record.pod));
  const podViews = pods.map((pod) => {
    const cards: Record<string, number[]> = {};
    for (const container of pod.spec?.containers ?? []) {
      const indexes = schedulerCards(pod, container.name);
      if (indexes) cards[container.name] = indexes;
    }
    const unschedulable = unschedulableReason(pod);
    return {
      name: pod.metadata?.name ?? '',
      node: pod.spec?.nodeName ?? null,
      phase: pod.status?.phase ?? null,
      containers: (pod.spec?.containers ?? []).map((container) => container.name),
      cards,
      unschedulable,
      // Why, per node group, in codes the browser words in the operator's language (the
      // scheduler's own message is English). Only stuck pods pay for this, usually none.
      ...(unschedulable !== null ? rejectionsOf(ctx, pod) : {}),
    };
  });
  const enough = pods.length >= desired;
  const scheduled = podViews.filter((pod) => pod.node !== null);
  const stuck = podViews.find((pod) => pod.unschedulable !== null);
  const running = pods.filter(isPodReady);
  const drift = records.filter((record) => record.verification === 'drift');
  const unreported = records.filter((record) => record.verification === 'unreported');
  const allScheduled = enough && scheduled.length >= desired;
  const allRunning = enough && running.length >= desired;
  const cardText = (pod: (typeof podViews)[number]) =>
    `${pod.name} → ${pod.node}${
      Object.keys(pod.cards).length > 0
        ? ` (${Object.entries(pod.cards)
            .map(([c, idx]) => `${c}: ${idx.join(',')}`)
            .join('; ')})`
        : ''
    }`;

  const stages: ProgressStage[] = [
    { stage: 'created', state: 'done', detail: deployment.metadata?.uid ?? null },
    // A pod no node takes now waits: Kubernetes keeps trying, so the stage is pending, never
    // failed (spec §9); the state says whether the whole workload is pending or stalled.
    stuck
      ? { stage: 'scheduled', state: 'pending', detail: stuck.unschedulable }
      : {
          stage: 'scheduled',
          state: allScheduled ? 'done' : 'pending',
          detail: scheduled.map(cardText).join('\n') || null,
        },
    {
      stage: 'running',
      state: allRunning ? 'done' : 'pending',
      detail: `${running.length}/${desired}`,
    },
    drift.length > 0
      ? {
          stage: 'verified',
          state: 'failed',
          detail: drift
            .map((r) => `${r.pod}/${r.container} card ${r.card}: ${r.drift.join(', ')}`)
            .join('\n'),
        }
      : {
          stage: 'verified',
          state: allRunning && unreported.length === 0 ? 'done' : 'pending',
          detail:
            unreported.length > 0
              ? `${unreported.length} instance(s) not reported by a node yet`
              : `${records.length} instance(s)`,
        },
  ];
  const rolloutOptions = {
    modelLabel: ctx.modelLabel,
    quotaRefusesNewPod: quotaRefusesNewPod(ctx, deployment),
  };
  const rollout = readRollout(deployment, pods, rolloutOptions);
  const state = workloadState(deployment, pods, rolloutOptions);
  // `outcome` follows the one state: failed only on a real failure (or a node's drift).
  const failed = state.state === 'failed' || stages.some((stage) => stage.state === 'failed');
  const done = stages.every((stage) => stage.state === 'done');
  return {
    namespace,
    name,
    exists: true,
    kind: deployment.kind,
    ...(deployment.metadata?.resourceVersion
      ? { resourceVersion: deployment.metadata.resourceVersion }
      : {}),
    outcome: failed ? 'failed' : done ? 'verified' : 'in-progress',
    stages,
    replicas: { desired, ready: running.length },
    pods: podViews,
    records,
    // Old and new pods of a rolling update, from the same pods the timeline reads.
    ...(rollout !== undefined ? { rollout } : {}),
    state,
  };
}

/**
 * `workload.progress`: the timeline of one workload, sent again whenever it changes. It is a
 * state, not a log: a reconnect (whatever its `lastEventId`) gets the current state first.
 */
export const workloadProgressSubscription = publicProcedure
  .input(WorkloadProgressInputSchema)
  .output(trackedStream(WorkloadProgressSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const { namespace, name } = input;
    await requireListPods(ctx, namespace);
    const changes = new ChangeSignal();
    // Nodes that hold this workload's pods: only their agents' reports concern it.
    let nodes = new Set<string>();
    // Pods are named `<deployment>-<hash>-<suffix>`, `<statefulset>-<n>`, `<job>-<suffix>`: a cheap test that lets
    // through every pod of this workload (and rarely one of a look-alike, which costs a recompute).
    const podPrefix = `${name}-`;
    // The workload itself, whichever kind it is.
    const thisObject = <T extends KubernetesObject>(informer: SharedInformer<T>) =>
      informer.subscribe((event) => {
        if (
          event.type === 'resync' ||
          (event.object.metadata?.namespace === namespace && event.object.metadata?.name === name)
        )
          changes.notify();
      });
    const unsubscribe = [
      thisObject(ctx.cluster.deployments),
      thisObject(ctx.cluster.workloads.statefulSets),
      thisObject(ctx.cluster.workloads.jobs),
      ctx.cluster.pods.subscribe((event) => {
        if (
          event.type === 'resync' ||
          (event.object.metadata?.namespace === namespace &&
            (event.object.metadata?.name ?? '').startsWith(podPrefix))
        )
          changes.notify();
      }),
      ctx.cluster.mgpuNodes.subscribe((event) => {
        if (event.type === 'resync' || nodes.has(event.object.metadata?.name ?? ''))
          changes.notify();
      }),
    ];
    // A signed-in operator's access is asked again every cache TTL: one who loses it gets
    // FORBIDDEN on the open stream within that time (the stream ends; nothing more is sent).
    const recheck = ctx.operator
      ? setInterval(() => changes.notify(), ctx.accessReviews.ttlMs)
      : undefined;
    let version = 0;
    let last = '';
    try {
      // The first state goes out at once; later ones only when something an operator sees changed.
      do {
        await requireListPods(ctx, namespace);
        const full = workloadProgress(ctx, namespace, name);
        const progress = (await seesNodes(ctx)) ? full : progressWithoutNodes(full);
        nodes = new Set(progress.pods.flatMap((pod) => (pod.node ? [pod.node] : [])));
        const text = JSON.stringify(progress);
        if (text !== last) {
          last = text;
          version++;
          yield tracked(`${namespace}/${name}/${version}`, progress);
        }
      } while (await changes.changed(signal));
    } finally {
      clearInterval(recheck);
      for (const stop of unsubscribe) stop();
    }
  });
