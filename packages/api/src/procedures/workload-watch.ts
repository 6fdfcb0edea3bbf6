import { createHash, randomBytes } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { SharedInformer } from '@mgpu/kube-client';
import {
  type WorkloadListEvent,
  WorkloadListEventSchema,
  type WorkloadSummary,
  WorkloadWatchInputSchema,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { ChangeSignal } from '../live/change-signal.js';
import { publicProcedure } from '../trpc/init.js';
import { snapshotEvents } from '../trpc/snapshot-events.js';
import { trackedStream } from '../trpc/tracked-stream.js';
import { visibleWorkloads } from './workload-list.js';

/** A list is recomputed at most this often however fast pods and reports change. */
const WORKLOAD_WATCH_COALESCE_MS = 100;

/** Ids from another process (a restarted BFF) never match: its subscribers get a snapshot. */
const EPOCH = randomBytes(4).toString('hex');

const keyOf = (workload: WorkloadSummary) =>
  `${workload.kind}/${workload.namespace}/${workload.name}`;

/**
 * The event id: the process and a digest of the whole list the subscriber holds after the
 * event. A reconnect whose `Last-Event-ID` matches the list as it is now missed nothing and gets
 * no snapshot; any other id gets one (the list is a state, not a log).
 */
const idOf = (list: readonly WorkloadSummary[]) =>
  `${EPOCH}-${createHash('sha1').update(JSON.stringify(list)).digest('base64url').slice(0, 16)}`;

/** What turns `before` into `after`: the workloads gone, and the new or changed ones. */
function changesBetween(
  before: ReadonlyMap<string, string>,
  after: readonly WorkloadSummary[],
): { deleted: WorkloadSummary[]; upserted: WorkloadSummary[] } {
  const now = new Map(after.map((workload) => [keyOf(workload), workload]));
  const deleted = [...before.entries()]
    .filter(([key]) => !now.has(key))
    .map(([, json]) => JSON.parse(json) as WorkloadSummary);
  const upserted = after.filter(
    (workload) => before.get(keyOf(workload)) !== JSON.stringify(workload),
  );
  return { deleted, upserted };
}

/**
 * `workload.watch`: `workload.list` live — a snapshot (in parts when it is large), then the
 * workloads that appear, change (replicas ready, verification, a new resourceVersion) or go.
 * Woken by the shared informers of the three kinds, the pods and the nodes' reports (which move
 * verification), coalesced.
 */
export const workloadWatch = publicProcedure
  .input(WorkloadWatchInputSchema)
  .output(trackedStream(WorkloadListEventSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const changes = new ChangeSignal(WORKLOAD_WATCH_COALESCE_MS);
    const wake = <T extends KubernetesObject>(informer: SharedInformer<T>) =>
      informer.subscribe((event) => {
        if (
          event.type === 'resync' ||
          !input?.namespace ||
          event.object.metadata?.namespace === input.namespace
        )
          changes.notify();
      });
    const unsubscribe = [
      wake(ctx.cluster.deployments),
      wake(ctx.cluster.workloads.statefulSets),
      wake(ctx.cluster.workloads.jobs),
      wake(ctx.cluster.pods),
      ctx.cluster.mgpuNodes.subscribe(() => changes.notify()),
    ];
    // A signed-in operator's list is recomputed every cache TTL too (spec §8: namespaces where
    // they may `list pods`), so a revoked namespace's workloads are deleted from their view
    // (and a granted one's sent) within that time.
    const recheck = ctx.operator
      ? setInterval(() => changes.notify(), ctx.accessReviews.ttlMs)
      : undefined;
    // What this subscriber holds, by key, as JSON: an unchanged workload is not sent again.
    let held = new Map<string, string>();
    let first = true;
    try {
      do {
        const list = await visibleWorkloads(ctx, input?.namespace);
        const id = idOf(list);
        if (first) {
          first = false;
          if (input?.lastEventId !== id)
            for (const part of snapshotEvents(
              id,
              list,
              ctx.snapshotPartSize,
              (workloads, fields): WorkloadListEvent => ({
                type: 'snapshot',
                ...fields,
                workloads,
              }),
            ))
              yield tracked(part.id, part.event);
        } else {
          const { deleted, upserted } = changesBetween(held, list);
          // Between the two events the subscriber holds neither list: an id that matches none,
          // so a reconnect right there gets a snapshot rather than miss the upserts.
          if (deleted.length > 0)
            yield tracked(upserted.length > 0 ? `${id}-partial` : id, {
              type: 'delete',
              workloads: deleted,
            } satisfies WorkloadListEvent);
          if (upserted.length > 0)
            yield tracked(id, { type: 'upsert', workloads: upserted } satisfies WorkloadListEvent);
        }
        held = new Map(list.map((workload) => [keyOf(workload), JSON.stringify(workload)]));
      } while (await changes.changed(signal));
    } finally {
      clearInterval(recheck);
      for (const stop of unsubscribe) stop();
    }
  });
