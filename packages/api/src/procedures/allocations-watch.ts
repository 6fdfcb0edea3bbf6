import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AllocationEvent,
  AllocationEventSchema,
  type AllocationFilter,
  type AllocationRecord,
  AllocationsWatchInputSchema,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { OperatorView } from '../identity/filtered-reads.js';
import type { Operator } from '../identity/operator.js';
import {
  type AllocationFeed,
  type FeedEntry,
  keepsEveryRecord,
  matchesFilter,
} from '../live/allocation-feed.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { trackedStream } from '../trpc/tracked-stream.js';

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';

/** The sequence of a feed id (`<epoch>-<sequence>`) this process made. */
const sequenceOf = (id: string) => Number(id.split('-')[1]);

/**
 * `allocations.watch`: a snapshot of every allocation record (or only those the filters keep),
 * then each change. Events are `tracked()`: a client reconnecting with `Last-Event-ID` gets
 * exactly the changes it missed, or a fresh snapshot when it is too far behind. A snapshot of
 * more than `ctx.snapshotPartSize` records comes in parts (`SnapshotPartSchema`).
 */
export const allocationsWatch = publicProcedure
  .input(AllocationsWatchInputSchema)
  .output(trackedStream(AllocationEventSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const filter = input ?? {};
    if (ctx.operator) {
      yield* operatorAllocations(ctx, ctx.operator, filter, signal);
      return;
    }
    const feed = ctx.allocations;
    // Listen before reading the snapshot or the replay, so nothing falls between them; both
    // cover every change up to `upTo`, so live entries up to it are skipped.
    const live = feed.live(signal);
    const upTo = feed.currentId;
    const replay = filter.lastEventId ? feed.entriesSince(filter.lastEventId) : undefined;
    // Unfiltered subscribers share the feed's event objects (validated and serialised once).
    const narrow = (event: AllocationEvent): AllocationEvent =>
      keepsEveryRecord(filter)
        ? event
        : feed.prepared({
            ...event,
            records: event.records.filter((record) => matchesFilter(record, filter)),
          });
    try {
      if (replay === undefined) {
        for (const part of feed.snapshotEntries(filter, ctx.snapshotPartSize))
          yield tracked(part.id, part.event);
      } else {
        for (const entry of replay) {
          const event = narrow(entry.event);
          if (event.records.length > 0) yield tracked(entry.id, event);
        }
      }
      const sentUpTo = sequenceOf(upTo);
      for await (const [entry] of live) {
        if (sequenceOf(entry.id) <= sentUpTo) continue;
        const event = narrow(entry.event);
        if (event.records.length > 0) yield tracked(entry.id, event);
      }
    } catch (error) {
      if (!isAbort(error)) throw error;
    } finally {
      // Ends the listener however the stream ends (client gone, error, server closing).
      await live.return?.();
    }
  });

/**
 * `allocations.watch` for a signed-in operator: the same feed, each snapshot and event cut to the
 * namespaces they may list pods in. Every cache TTL the stream asks again; when a namespace was
 * granted or revoked it sends a fresh snapshot (the client replaces its records with it), so a
 * revoked namespace's records leave the operator's view within the TTL and a granted one's
 * arrive. The snapshot's id is a feed id like any other, so a reconnect resumes after it.
 */
async function* operatorAllocations(
  ctx: BffContext,
  operator: Operator,
  filter: AllocationFilter,
  signal: AbortSignal | undefined,
) {
  const feed = ctx.allocations;
  const view = new OperatorView(ctx.accessReviews, operator);
  const live = feed.live(signal);
  const visibleRecords = async (records: readonly AllocationRecord[]) => {
    const kept = records.filter((record) => matchesFilter(record, filter));
    const visible = await view.visible(kept.map((record) => record.namespace));
    return kept.filter((record) => visible.has(record.namespace));
  };
  /** A snapshot of what the operator may see, in parts; complete up to the last part's id. */
  const visibleSnapshot = async (of: AllocationFeed) => {
    // Read together, so the snapshot is complete up to `id`.
    const id = of.currentId;
    const records = of.snapshot(filter);
    return { id, parts: of.snapshotOf(id, await visibleRecords(records), ctx.snapshotPartSize) };
  };
  /** The operator's share of a feed event: the feed's own records, so still prepared output. */
  const visibleEvent = async (event: AllocationEvent) =>
    feed.prepared({ ...event, records: await visibleRecords(event.records) });
  try {
    let sentUpTo: number;
    const replay = filter.lastEventId ? feed.entriesSince(filter.lastEventId) : undefined;
    if (replay === undefined) {
      const first = await visibleSnapshot(feed);
      sentUpTo = sequenceOf(first.id);
      for (const part of first.parts) yield tracked(part.id, part.event);
    } else {
      sentUpTo = sequenceOf(feed.currentId);
      for (const entry of replay) {
        const event = await visibleEvent(entry.event);
        if (event.records.length > 0) yield tracked(entry.id, event);
      }
    }
    // Aborted while the loop waits elsewhere (a review, a yield), a timer's rejection is no
    // failure of anyone's: marked handled, or the process reports it as unhandled.
    const nextRecheck = () => {
      const timer = sleep(view.recheckMs, 'recheck' as const, { signal });
      timer.catch(() => undefined);
      return timer;
    };
    let nextEntry = live.next();
    let recheck = nextRecheck();
    for (;;) {
      const next = await Promise.race([nextEntry, recheck]);
      if (next === 'recheck') {
        recheck = nextRecheck();
        if (!(await view.recheck())) continue;
        const fresh = await visibleSnapshot(feed);
        sentUpTo = sequenceOf(fresh.id);
        for (const part of fresh.parts) yield tracked(part.id, part.event);
        continue;
      }
      if (next.done) return;
      nextEntry = live.next();
      const [entry] = next.value as [FeedEntry];
      if (sequenceOf(entry.id) <= sentUpTo) continue;
      const event = await visibleEvent(entry.event);
      if (event.records.length > 0) yield tracked(entry.id, event);
    }
  } catch (error) {
    if (!isAbort(error)) throw error;
  } finally {
    await live.return?.();
  }
}
