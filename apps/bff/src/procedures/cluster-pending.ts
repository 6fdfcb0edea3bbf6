import {
  isPendingGpuPod,
  PendingInputSchema,
  type PendingPod,
  PendingPodsSchema,
  PendingWatchInputSchema,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { pendingWithoutNodes, seesNodes } from '../identity/cluster-view.js';
import { visibleItems } from '../identity/filtered-reads.js';
import { ChangeSignal } from '../live/change-signal.js';
import { currentPendingPods } from '../live/pending-pods.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { trackedStream } from '../trpc/tracked-stream.js';

/**
 * Changes within this window are answered with one recomputed list: the pace at which the
 * dashboard redraws its summary (`SUMMARY_INTERVAL_MS`), so a burst of pod events costs one
 * placement per pending pod, not one per event.
 */
const PENDING_COALESCE_MS = 100;

const podKey = (namespace: string | undefined, name: string | undefined) =>
  `${namespace ?? 'default'}/${name ?? ''}`;

/** One id per list object, so subscribers sharing a list share its serialised SSE frame too. */
const listIds = new WeakMap<object, string>();
let nextListId = 0;
const idOf = (list: object) => {
  let id = listIds.get(list);
  if (id === undefined) {
    id = String(++nextListId);
    listIds.set(list, id);
  }
  return id;
};

/**
 * The pending pods of `namespace` (or all), cut to what a signed-in operator may see: their
 * namespaces, and node names and per-pool figures only if they may list nodes.
 */
async function pendingIn(
  ctx: BffContext,
  namespace: string | undefined,
): Promise<readonly PendingPod[]> {
  const all = currentPendingPods(ctx);
  const wanted = namespace ? all.filter((pod) => pod.namespace === namespace) : all;
  if (!ctx.operator) return wanted;
  const [visible, nodes] = await Promise.all([visibleItems(ctx, wanted), seesNodes(ctx)]);
  return nodes ? visible : pendingWithoutNodes(visible);
}

/** `cluster.pending` (spec §8): every GPU pod the scheduler has not placed, and why. */
export const clusterPending = publicProcedure
  .input(PendingInputSchema)
  .output(PendingPodsSchema)
  .query(async ({ ctx, input }) => [...(await pendingIn(ctx, input?.namespace))]);

/**
 * `cluster.pendingWatch`: the same list, sent again whenever it changes. It is a state, not a
 * log: a reconnect (whatever its `lastEventId`) gets the current list first.
 */
export const clusterPendingWatch = publicProcedure
  .input(PendingWatchInputSchema)
  .output(trackedStream(PendingPodsSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const changes = new ChangeSignal(PENDING_COALESCE_MS);
    let waiting = new Set<string>();
    const unsubscribe = [
      ctx.cluster.pods.subscribe((event) => {
        // A pod joins or leaves the list; while any waits, any pod's change (one freeing or
        // taking cards) may change its verdict.
        if (
          event.type === 'resync' ||
          waiting.size > 0 ||
          isPendingGpuPod(event.object) ||
          waiting.has(podKey(event.object.metadata?.namespace, event.object.metadata?.name))
        )
          changes.notify();
      }),
      ctx.cluster.nodes.subscribe(() => {
        if (waiting.size > 0) changes.notify();
      }),
    ];
    // A signed-in operator's list is recomputed every cache TTL too, so a revoked namespace's
    // pods leave it (and a granted one's join) within that time.
    const recheck = ctx.operator
      ? setInterval(() => changes.notify(), ctx.accessReviews.ttlMs)
      : undefined;
    let last = '';
    try {
      do {
        const pending = await pendingIn(ctx, input.namespace);
        waiting = new Set(pending.map((pod) => podKey(pod.namespace, pod.pod)));
        const text = JSON.stringify(pending);
        if (text !== last) {
          last = text;
          // Unfiltered, every subscriber yields the same list object: validated and serialised once.
          yield tracked(idOf(pending), pending as PendingPod[]);
        }
      } while (await changes.changed(signal));
    } finally {
      clearInterval(recheck);
      for (const stop of unsubscribe) stop();
    }
  });
