import type { V1Pod } from '@kubernetes/client-node';
import {
  type AllocationRecord,
  evaluateRequest,
  isManagedByConsole,
  readRollout,
  readWorkloadObject,
  revisionShares,
  WorkloadListInputSchema,
  WorkloadListSchema,
  type WorkloadSummary,
  type WorkloadVerification,
  workloadOfPod,
  workloadState,
} from '@mgpu/shared';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import { seesNodes, summaryWithoutNodes } from '../identity/cluster-view.js';
import { visibleItems } from '../identity/filtered-reads.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { ownedBy, quotaRefusesNewPod } from './workload-progress.js';

/** verified: every reported instance matches; drift: one does not; unknown: none reported yet. */
export function verificationOf(records: readonly AllocationRecord[]): WorkloadVerification {
  if (records.some((record) => record.verification === 'drift')) return 'drift';
  return records.length > 0 && records.every((record) => record.verification === 'verified')
    ? 'verified'
    : 'unknown';
}

/** Wanted and ready pods: a Job's are its parallelism and its ready (or active) pods. */
function replicasOf(object: LiveWorkload): { wanted: number; ready: number; available: number } {
  if (object.kind === 'Job') {
    const ready = object.status?.ready ?? object.status?.active ?? 0;
    return { wanted: object.spec?.parallelism ?? 1, ready, available: ready };
  }
  return {
    wanted: object.spec?.replicas ?? 1,
    ready: object.status?.readyReplicas ?? 0,
    available: object.status?.availableReplicas ?? 0,
  };
}

type Health = Pick<WorkloadSummary, 'state' | 'revisions'>;

/**
 * The last health read per workload object, with the pods and quota verdict it was read from:
 * every `workload.watch` subscriber recomputes the list on each change, and most workloads did
 * not change (the informers replace an object when it does, so a new object is a miss).
 */
const healthCache = new WeakMap<LiveWorkload, { key: string; health: Health }>();

/** The workload's state and its pods' shares per revision, read from its live pods. */
function healthOf(ctx: BffContext, object: LiveWorkload, pods: readonly V1Pod[]): Health {
  const rolloutOptions = {
    modelLabel: ctx.modelLabel,
    quotaRefusesNewPod: quotaRefusesNewPod(ctx, object),
  };
  const key = `${rolloutOptions.quotaRefusesNewPod}/${pods
    .map((pod) => `${pod.metadata?.uid}@${pod.metadata?.resourceVersion}`)
    .join(',')}`;
  const cached = healthCache.get(object);
  if (cached?.key === key) return cached.health;
  // A Job has no rollout: all its pods run its one template.
  const newPods = new Set(readRollout(object, pods, rolloutOptions)?.newPods);
  const health = {
    state: workloadState(object, pods, rolloutOptions),
    revisions: revisionShares(
      pods,
      (pod) => object.kind === 'Job' || newPods.has(pod),
      rolloutOptions,
    ),
  };
  healthCache.set(object, { key, health });
  return health;
}

/** A workload as the console lists it, its GPU shares read back by the shared reader. */
export function summarizeWorkload(
  ctx: BffContext,
  object: LiveWorkload,
  records?: readonly AllocationRecord[],
  ownPods?: readonly V1Pod[],
): WorkloadSummary {
  const read = readWorkloadObject(object, { modelLabel: ctx.modelLabel });
  const shares = read ? evaluateRequest(read.request).shares : [];
  const namespace = object.metadata?.namespace ?? 'default';
  const name = object.metadata?.name ?? '';
  const replicas = replicasOf(object);
  const pods = (ownPods ?? ctx.cluster.pods.list().filter((pod) => ownedBy(pod, object))).filter(
    (pod) => !pod.metadata?.deletionTimestamp,
  );
  const health = healthOf(ctx, object, pods);
  return {
    kind: object.kind,
    namespace,
    name,
    uid: object.metadata?.uid ?? '',
    resourceVersion: object.metadata?.resourceVersion ?? '',
    createdAt: object.metadata?.creationTimestamp
      ? new Date(object.metadata.creationTimestamp).toISOString()
      : null,
    replicas: replicas.wanted,
    readyReplicas: replicas.ready,
    availableReplicas: replicas.available,
    managedByConsole: isManagedByConsole(object),
    computePolicy: read?.computePolicy ?? null,
    containers: shares,
    // Records name their workload by the pod's owner (a Deployment through its ReplicaSet).
    verification: verificationOf(
      records ?? ctx.allocations.snapshot({ namespace, workload: name }),
    ),
    state: health.state,
    revisions: health.revisions,
  };
}

/**
 * The Deployments, StatefulSets and Jobs that use GPUs (or that the console made), newest
 * first, in one namespace or all: `workload.list` and every `workload.watch` event.
 */
export function listWorkloads(ctx: BffContext, namespace?: string): WorkloadSummary[] {
  // One pass over the records for every workload, not one per workload.
  const recordsOf = new Map<string, AllocationRecord[]>();
  for (const record of ctx.allocations.snapshot(namespace ? { namespace } : {})) {
    const key = `${record.namespace}/${record.workload}`;
    // Pushed, not copied: 30,000 records of one workload copied per record took 25 s.
    const records = recordsOf.get(key);
    if (records) records.push(record);
    else recordsOf.set(key, [record]);
  }
  // One pass over the pods too, by the one ownership reading (`workloadOfPod`).
  const podsOf = new Map<string, V1Pod[]>();
  for (const pod of ctx.cluster.pods.list()) {
    const owner = workloadOfPod(pod);
    if (!owner || (namespace && pod.metadata?.namespace !== namespace)) continue;
    const key = `${pod.metadata?.namespace}/${owner.kind}/${owner.name}`;
    const pods = podsOf.get(key);
    if (pods) pods.push(pod);
    else podsOf.set(key, [pod]);
  }
  return ctx.cluster.workloads
    .listAll()
    .filter((object) => !namespace || object.metadata?.namespace === namespace)
    .map((object) =>
      summarizeWorkload(
        ctx,
        object,
        recordsOf.get(`${object.metadata?.namespace}/${object.metadata?.name}`) ?? [],
        podsOf.get(`${object.metadata?.namespace}/${object.kind}/${object.metadata?.name}`) ?? [],
      ),
    )
    .filter((summary) => summary.managedByConsole || summary.containers.length > 0)
    .sort((a, b) => (b.createdAt ?? '').localeCompare(a.createdAt ?? ''));
}

/**
 * The workloads the request's operator sees: those of the namespaces they may list pods in,
 * their states without the scheduler's node counts unless they may `list nodes`.
 */
export async function visibleWorkloads(
  ctx: BffContext,
  namespace?: string,
): Promise<WorkloadSummary[]> {
  const [list, nodes] = await Promise.all([
    visibleItems(ctx, listWorkloads(ctx, namespace)),
    seesNodes(ctx),
  ]);
  return nodes ? [...list] : list.map(summaryWithoutNodes);
}

/** `workload.list` (spec §8): the operator's mGPU workloads now; `workload.watch` keeps them live. */
export const workloadList = publicProcedure
  .input(WorkloadListInputSchema)
  .output(WorkloadListSchema)
  .query(({ ctx, input }) => visibleWorkloads(ctx, input?.namespace));
