import { randomBytes } from 'node:crypto';
import {
  PENDING_GROUP_PODS,
  type PendingGroup,
  type PendingGroupEvent,
  PendingGroupEventSchema,
  PendingWatchInputSchema,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { ChangeSignal } from '../live/change-signal.js';
import { pendingGroupListing, pendingGroupsFor } from '../live/pending-cut.js';
import { publicProcedure } from '../trpc/init.js';
import { prepareOutput } from '../trpc/prepared-output.js';
import { snapshotEvents } from '../trpc/snapshot-events.js';
import { trackedStream } from '../trpc/tracked-stream.js';

/**
 * Changes within this window are answered with one look at the view: the pace at which the
 * dashboard redraws its summary (`SUMMARY_INTERVAL_MS`), so a burst of pod events is one event.
 */
const PENDING_COALESCE_MS = 100;

/** Ids from another process never match anything; ids are unique per event within one. */
const EPOCH = randomBytes(4).toString('hex');
let sequence = 0;

/** Groups are validated as the view makes them: their events need no second parse per subscriber. */
const prepared = (event: PendingGroupEvent) =>
  prepareOutput(PendingGroupEventSchema, event, () => JSON.stringify(event));

/**
 * `cluster.pendingWatch`: the pending groups live — a snapshot of every group the caller may
 * see (in parts when large), then per group an `upsert` when it appears or changes (a pod joins
 * or leaves it, its verdict moves) and a `delete` when it no longer waits. Each group lists its
 * first `PENDING_GROUP_PODS` pods. A state, not a log: a reconnect gets a fresh snapshot.
 * Issue 25: re-sending the whole list on every change took 10 subscribers' console to 716 MiB.
 */
export const clusterPendingWatch = publicProcedure
  .input(PendingWatchInputSchema)
  .output(trackedStream(PendingGroupEventSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const changes = new ChangeSignal(PENDING_COALESCE_MS);
    const stop = ctx.views.pending.onChange(() => changes.notify());
    // A signed-in operator's groups are cut again every cache TTL too, so a revoked
    // namespace's groups leave (and a granted one's join) within that time.
    const recheck = ctx.operator
      ? setInterval(() => changes.notify(), ctx.accessReviews.ttlMs)
      : undefined;
    // What this subscriber holds, by key: the view keeps an unchanged group the same object.
    let held = new Map<string, PendingGroup>();
    let first = true;
    try {
      do {
        const groups = (await pendingGroupsFor(ctx, input.namespace)).map((group) =>
          pendingGroupListing(group, PENDING_GROUP_PODS),
        );
        const id = `${EPOCH}-${++sequence}`;
        if (first) {
          first = false;
          for (const part of snapshotEvents(id, groups, ctx.snapshotPartSize, (items, fields) =>
            prepared({ type: 'snapshot', ...fields, groups: items }),
          ))
            yield tracked(part.id, part.event);
        } else {
          const now = new Set(groups.map((group) => group.key));
          const deleted = [...held.values()].filter((group) => !now.has(group.key));
          const upserted = groups.filter((group) => held.get(group.key) !== group);
          // Between the two events the subscriber holds neither state: an id no reconnect
          // could mistake for the state after both.
          if (deleted.length > 0)
            yield tracked(
              upserted.length > 0 ? `${id}-partial` : id,
              prepared({ type: 'delete', groups: deleted }),
            );
          if (upserted.length > 0)
            yield tracked(id, prepared({ type: 'upsert', groups: upserted }));
        }
        held = new Map(groups.map((group) => [group.key, group]));
      } while (await changes.changed(signal));
    } finally {
      clearInterval(recheck);
      stop();
    }
  });
