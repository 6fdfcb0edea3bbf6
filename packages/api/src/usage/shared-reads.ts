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
import type { UsageSource } from './usage-source.js';

/** Up to this many times `maxAgeMs` old, a read is served while its successor runs. */
export const STALE_FACTOR = 6;
/** Windows kept at once: every page asks for one of a few; an odd one must not grow the map. */
const WINDOWS_KEPT = 8;

interface Read {
  readings: UsageReadings;
  startedAt: number;
  version: unknown;
}

interface WindowReads {
  latest?: Read;
  running?: Promise<UsageReadings>;
}

export interface SharedUsageReadsOptions {
  source: Pick<UsageSource, 'version'>;
  /** Reads the source now; never rejects (a failed read is `failed` readings). */
  read: (windowSeconds: number) => Promise<UsageReadings>;
  /** 0: every call waits for a read of its own (or joins one already running). */
  maxAgeMs: number;
  now?: () => number;
}

export class SharedUsageReads {
  private readonly windows = new Map<number, WindowReads>();
  private readonly now: () => number;

  constructor(private readonly options: SharedUsageReadsOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The readings over the last `windowSeconds`, shared as the header says. */
  read(windowSeconds: number): Promise<UsageReadings> {
    const reads = this.windowReads(windowSeconds);
    const version = this.options.source.version?.();
    const { latest } = reads;
    const age = latest ? this.now() - latest.startedAt : Number.POSITIVE_INFINITY;
    const versioned = version !== undefined;
    if (latest && (versioned ? latest.version === version : age < this.options.maxAgeMs))
      return Promise.resolve(latest.readings);
    const next = reads.running ?? this.start(windowSeconds, reads, version);
    if (latest && !versioned && age < this.options.maxAgeMs * STALE_FACTOR)
      return Promise.resolve(latest.readings);
    return next;
  }

  private windowReads(windowSeconds: number): WindowReads {
    const known = this.windows.get(windowSeconds);
    if (known) return known;
    const fresh: WindowReads = {};
    this.windows.set(windowSeconds, fresh);
    if (this.windows.size > WINDOWS_KEPT) {
      const [oldest] = this.windows.keys();
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    return fresh;
  }

  private start(windowSeconds: number, reads: WindowReads, version: unknown) {
    const startedAt = this.now();
    const running = this.options.read(windowSeconds).then((readings) => {
      reads.latest = { readings, startedAt, version };
      reads.running = undefined;
      return readings;
    });
    reads.running = running;
    return running;
  }
}
