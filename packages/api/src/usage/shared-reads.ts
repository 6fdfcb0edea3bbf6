/**
 * Whole-cluster usage reads shared by every caller (issue 28 "Speed"). Through Prometheus one
 * read costs it about a second of CPU at 1,000 nodes × 8 cards (docs/performance.md), and its
 * figures move once a scrape, so each page, poll and `/metrics` scrape asking for the same window
 * joins one read instead of starting its own: what HAMi-WebUI's per-card queries did to their
 * TSDB, ten operators polling would otherwise do to Prometheus.
 *
 * A source that says when its figures change (`UsageSource.version`, the embedded exporter's
 * newest sample) is read again only then, so its answers are never older than its samples. Any
 * other source (Prometheus) is read at most once per `maxAgeMs` (`--usage-max-age`); past that,
 * callers get the last read while the next one runs, until the last read is `STALE_FACTOR` times
 * older than that, after which they wait for the new one (a console nobody asked for a while
 * never answers with figures from long ago).
 */
import type { UsageReadings } from '@mgpu/shared';
import { SharedRead } from '../live/shared-read.js';
import type { UsageSource } from './usage-source.js';

/** Up to this many times `maxAgeMs` old, a read is served while its successor runs. */
export const STALE_FACTOR = 6;
/** Windows kept at once: every page asks for one of a few; an odd one must not grow the map. */
const WINDOWS_KEPT = 8;

export interface SharedUsageReadsOptions {
  source: Pick<UsageSource, 'version'>;
  /** Reads the source now; never rejects (a failed read is `failed` readings). */
  read: (windowSeconds: number) => Promise<UsageReadings>;
  /** 0: every call waits for a read of its own (or joins one already running). */
  maxAgeMs: number;
  now?: () => number;
}

/** One `SharedRead` per window asked for. */
export class SharedUsageReads {
  private readonly windows = new Map<number, SharedRead<UsageReadings>>();

  constructor(private readonly options: SharedUsageReadsOptions) {}

  /** The readings over the last `windowSeconds`, shared as the header says. */
  read(windowSeconds: number): Promise<UsageReadings> {
    return this.windowReads(windowSeconds).get();
  }

  private windowReads(windowSeconds: number): SharedRead<UsageReadings> {
    const known = this.windows.get(windowSeconds);
    if (known) return known;
    const { source, read, maxAgeMs, now } = this.options;
    const fresh = new SharedRead<UsageReadings>({
      read: () => read(windowSeconds),
      maxAgeMs,
      staleFactor: STALE_FACTOR,
      version: () => source.version?.(),
      ...(now ? { now } : {}),
    });
    this.windows.set(windowSeconds, fresh);
    if (this.windows.size > WINDOWS_KEPT) {
      const [oldest] = this.windows.keys();
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return fresh;
  }
}
