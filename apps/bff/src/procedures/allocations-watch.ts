import { type AllocationEvent, AllocationEventSchema, AllocationFilterSchema } from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { matchesFilter } from '../live/allocation-feed.js';
import { publicProcedure } from '../trpc/init.js';
import { trackedStream } from '../trpc/tracked-stream.js';

const isAbort = (error: unknown) => error instanceof Error && error.name === 'AbortError';

/**
 * `allocations.watch`: a snapshot of every allocation record (or only those the filters keep),
 * then each change. Events are `tracked()`: a client reconnecting with `Last-Event-ID` gets
 * exactly the changes it missed, or a fresh snapshot when it is too far behind.
 */
export const AllocationsWatchInputSchema = AllocationFilterSchema.optional();

export const allocationsWatch = publicProcedure
  .input(AllocationsWatchInputSchema)
  .output(trackedStream(AllocationEventSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const filter = input ?? {};
    const feed = ctx.allocations;
    // Listen before reading the snapshot or the replay, so nothing falls between them; both
    // cover every change up to `upTo`, so live entries up to it are skipped.
    const live = feed.live(signal);
    const upTo = feed.currentId;
    const replay = filter.lastEventId ? feed.entriesSince(filter.lastEventId) : undefined;
    const filtering = Boolean(filter.namespace || filter.workload || filter.node || filter.pod);
    // Unfiltered subscribers share the feed's event object (validated once for all of them).
    const narrow = (event: AllocationEvent): AllocationEvent =>
      filtering
        ? { ...event, records: event.records.filter((record) => matchesFilter(record, filter)) }
        : event;
    try {
      if (replay === undefined) {
        yield tracked(upTo, {
          type: 'snapshot',
          records: feed.snapshot(filter),
          at: new Date().toISOString(),
        } satisfies AllocationEvent);
      } else {
        for (const entry of replay) {
          const event = narrow(entry.event);
          if (event.records.length > 0) yield tracked(entry.id, event);
        }
      }
      const sentUpTo = Number(upTo.split('-')[1]);
      for await (const [entry] of live) {
        if (Number(entry.id.split('-')[1]) <= sentUpTo) continue;
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
