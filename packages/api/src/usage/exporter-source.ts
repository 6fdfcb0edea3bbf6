/**
 * Usage read from the embedded cluster's GPU exporter in-process (issue 28: no
 * `--prometheus-url` on the embedded cluster): a snapshot every `sampleIntervalMs` (15 s, like
 * a scrape) kept in a bounded ring, so `npm start` shows usage at once and the window's mean and
 * the idle verdict need no Prometheus. The figures are the simulator's model (`simulated`).
 */
import type { GpuUsageSnapshot } from '@mgpu/shared';
import type {
  CardUsage,
  InstanceUsage,
  UsageQuery,
  UsageSource,
  UtilizationFigures,
} from './usage-source.js';

export interface ExporterSourceOptions {
  /** The embedded cluster's figures now (`EmbeddedGpuMetrics.samples`). */
  read: () => GpuUsageSnapshot;
  /** Between two snapshots, default 15 s. */
  sampleIntervalMs?: number;
  /** How far back snapshots are kept, default 30 min: at least `--idle-after`. */
  retentionMs?: number;
}

export const EXPORTER_SAMPLE_INTERVAL_MS = 15_000;
const DEFAULT_RETENTION_MS = 30 * 60_000;

/** One series' points, oldest first: time (ms) and value. */
type Points = { at: number; value: number }[];

export class ExporterSource implements UsageSource {
  readonly kind = 'embedded' as const;
  readonly simulated = true;
  readonly hasInstanceSeries = true;
  private readonly read: () => GpuUsageSnapshot;
  private readonly capacity: number;
  /** Snapshots oldest first; never more than `capacity` (the ring's bound). */
  private readonly ring: GpuUsageSnapshot[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(options: ExporterSourceOptions) {
    this.read = options.read;
    const interval = options.sampleIntervalMs ?? EXPORTER_SAMPLE_INTERVAL_MS;
    this.capacity = Math.ceil((options.retentionMs ?? DEFAULT_RETENTION_MS) / interval) + 1;
    this.sample();
    this.timer = setInterval(() => this.sample(), interval);
    this.timer.unref();
  }

  private sample(): void {
    try {
      this.ring.push(this.read());
    } catch {
      // The cluster is stopping: no snapshot this time; the window shows the gap.
      return;
    }
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
  }

  /** The snapshots at most `seconds` older than the newest. */
  private since(seconds: number): GpuUsageSnapshot[] {
    const newest = this.ring.at(-1)?.at;
    if (newest === undefined) return [];
    return this.ring.filter((snapshot) => snapshot.at >= newest - seconds * 1000);
  }

  async instanceUsage(query: UsageQuery): Promise<InstanceUsage[]> {
    const series = new Map<string, { instance: InstanceUsage; points: Points; memory: Points }>();
    for (const snapshot of this.since(lookbackSeconds(query)))
      for (const sample of snapshot.instances) {
        const key = `${sample.node}/${sample.namespace}/${sample.pod}/${sample.container}/${sample.card}`;
        let entry = series.get(key);
        if (!entry) {
          const { node, card, namespace, pod, container } = sample;
          entry = {
            instance: {
              node,
              card,
              namespace,
              pod,
              container,
              utilization: noFigures(),
              memoryUsedMiB: null,
            },
            points: [],
            memory: [],
          };
          series.set(key, entry);
        }
        entry.points.push({ at: snapshot.at, value: sample.utilizationPercent });
        if (sample.memoryUsedMiB !== null)
          entry.memory.push({ at: snapshot.at, value: sample.memoryUsedMiB });
      }
    const now = this.ring.at(-1)?.at ?? 0;
    return [...series.values()].map(({ instance, points, memory }) => ({
      ...instance,
      utilization: figuresOf(points, query, now),
      memoryUsedMiB: meanIn(memory, query, now),
    }));
  }

  async cardUsage(query: UsageQuery): Promise<CardUsage[]> {
    const series = new Map<
      string,
      { card: CardUsage; points: Points; used: Points; free: Points }
    >();
    for (const snapshot of this.since(lookbackSeconds(query)))
      for (const sample of snapshot.cards) {
        const key = `${sample.node}/${sample.card}`;
        let entry = series.get(key);
        if (!entry) {
          entry = {
            card: {
              node: sample.node,
              card: sample.card,
              uuid: sample.uuid,
              model: sample.model,
              utilization: noFigures(),
              memoryUsedMiB: null,
              memoryFreeMiB: null,
            },
            points: [],
            used: [],
            free: [],
          };
          series.set(key, entry);
        }
        entry.points.push({ at: snapshot.at, value: sample.utilizationPercent });
        if (sample.memoryUsedMiB !== null)
          entry.used.push({ at: snapshot.at, value: sample.memoryUsedMiB });
        if (sample.memoryFreeMiB !== null)
          entry.free.push({ at: snapshot.at, value: sample.memoryFreeMiB });
      }
    const now = this.ring.at(-1)?.at ?? 0;
    return [...series.values()].map(({ card, points, used, free }) => ({
      ...card,
      utilization: figuresOf(points, query, now),
      memoryUsedMiB: meanIn(used, query, now),
      memoryFreeMiB: meanIn(free, query, now),
    }));
  }

  close(): void {
    clearInterval(this.timer);
    this.ring.length = 0;
  }
}

/** How far back the figures look: the window, and at least `--idle-after` for quietness. */
const lookbackSeconds = (query: UsageQuery) =>
  Math.max(query.windowSeconds, query.idleAfterSeconds);

const noFigures = (): UtilizationFigures => ({
  meanPercent: null,
  sampledSeconds: 0,
  quietSeconds: null,
});

/** The points in the query's window (the newest snapshot's time minus the window). */
const inWindow = (points: Points, query: UsageQuery, now: number) =>
  points.filter((point) => point.at >= now - query.windowSeconds * 1000);

function meanIn(points: Points, query: UsageQuery, now: number): number | null {
  const window = inWindow(points, query, now);
  return window.length > 0
    ? window.reduce((sum, point) => sum + point.value, 0) / window.length
    : null;
}

/**
 * Mean over the window, the span sampled, and the trailing run under the threshold: from the
 * newest point back to the oldest still under it. A series that stopped before the newest
 * snapshot (its pod went away) still reads up to its own last point.
 */
function figuresOf(points: Points, query: UsageQuery, now: number): UtilizationFigures {
  const window = inWindow(points, query, now);
  const first = window[0];
  const last = window.at(-1);
  let quietSince: number | undefined;
  for (let index = points.length - 1; index >= 0; index--) {
    const point = points[index];
    if (!point || point.value >= query.idleThresholdPercent) break;
    quietSince = point.at;
  }
  const newest = points.at(-1);
  return {
    meanPercent: meanIn(points, query, now),
    sampledSeconds: first && last ? (last.at - first.at) / 1000 : 0,
    quietSeconds:
      newest === undefined ? null : quietSince === undefined ? 0 : (newest.at - quietSince) / 1000,
  };
}
