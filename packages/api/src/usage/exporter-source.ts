/**
 * Usage read from the embedded cluster's GPU exporter in-process (issue 28: no
 * `--prometheus-url` on the embedded cluster): a snapshot every `sampleIntervalMs` (15 s, like
 * a scrape), kept per series for a bounded time, so `npm start` shows usage at once and the
 * window's mean and the idle verdict need no Prometheus. The figures are the simulator's model
 * (`simulated`).
 */
import { cardKey, type GpuUsageSnapshot, type QuietLookback, quietSecondsOf } from '@mgpu/shared';
import type {
  CardKey,
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
  /** How far back points are kept, default 30 min: at least `--idle-after`. */
  retentionMs?: number;
}

export const EXPORTER_SAMPLE_INTERVAL_MS = 15_000;
const DEFAULT_RETENTION_MS = 30 * 60_000;

/**
 * One series' points, oldest first, in parallel arrays (a series is read far more often than
 * it grows, and 24,000 of them at 1,000 nodes should not be 3 million small objects).
 */
interface Series<Labels> {
  labels: Labels;
  at: number[];
  utilization: number[];
  /** Memory used (NaN where the exporter had none) and, for cards, free. */
  memoryUsed: number[];
  memoryFree: number[];
}

type InstanceLabels = Omit<InstanceUsage, 'utilization' | 'memoryUsedMiB'>;
type CardLabels = CardKey & { uuid: string; model: string };

export class ExporterSource implements UsageSource {
  readonly kind = 'embedded' as const;
  readonly simulated = true;
  private readonly read: () => GpuUsageSnapshot;
  private readonly retentionMs: number;
  private readonly instances = new Map<string, Series<InstanceLabels>>();
  private readonly cards = new Map<string, Series<CardLabels>>();
  /** The newest snapshot's time: windows end there. */
  private newest: number | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(options: ExporterSourceOptions) {
    this.read = options.read;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.sample();
    this.timer = setInterval(
      () => this.sample(),
      options.sampleIntervalMs ?? EXPORTER_SAMPLE_INTERVAL_MS,
    );
    this.timer.unref();
  }

  private sample(): void {
    let snapshot: GpuUsageSnapshot;
    try {
      snapshot = this.read();
    } catch {
      // The cluster is stopping: no snapshot this time; the window shows the gap.
      return;
    }
    const { at } = snapshot;
    this.newest = at;
    for (const sample of snapshot.instances) {
      const { node, card, namespace, pod, container } = sample;
      const key = `${node}/${namespace}/${pod}/${container}/${card}`;
      append(
        this.instances,
        key,
        { node, card, namespace, pod, container },
        at,
        sample.utilizationPercent,
        sample.memoryUsedMiB,
        null,
      );
    }
    for (const sample of snapshot.cards) {
      const { node, card, uuid, model } = sample;
      append(
        this.cards,
        `${node}/${card}`,
        { node, card, uuid, model },
        at,
        sample.utilizationPercent,
        sample.memoryUsedMiB,
        sample.memoryFreeMiB,
      );
    }
    // The bound: points older than the retention go, and so do series with none left (a pod gone).
    const oldest = at - this.retentionMs;
    forget(this.instances, oldest);
    forget(this.cards, oldest);
  }

  async instanceUsage(query: UsageQuery): Promise<InstanceUsage[]> {
    const from = this.windowStart(query);
    return [...this.instances.values()].map((series) => ({
      ...series.labels,
      utilization: figuresOf(series, query, from),
      memoryUsedMiB: meanOf(series.at, series.memoryUsed, from),
    }));
  }

  async cardUsage(query: UsageQuery): Promise<CardUsage[]> {
    const from = this.windowStart(query);
    return [...this.cards.values()].map((series) => ({
      ...series.labels,
      utilization: figuresOf(series, query, from),
      memoryUsedMiB: meanOf(series.at, series.memoryUsed, from),
      memoryFreeMiB: meanOf(series.at, series.memoryFree, from),
    }));
  }

  async cardMeanUtilization(windowSeconds: number): Promise<ReadonlyMap<string, number>> {
    const from = (this.newest ?? 0) - windowSeconds * 1000;
    const means = new Map<string, number>();
    for (const { labels, at, utilization } of this.cards.values()) {
      const mean = meanOf(at, utilization, from);
      if (mean !== null) means.set(cardKey(labels.node, labels.card), mean);
    }
    return means;
  }

  /** The newest snapshot's time: every figure is read from the snapshots up to it. */
  version(): number | undefined {
    return this.newest;
  }

  /** The window ends at the newest snapshot (not the clock): a late sample shifts it, not empties it. */
  private windowStart(query: UsageQuery): number {
    return (this.newest ?? 0) - query.windowSeconds * 1000;
  }

  close(): void {
    clearInterval(this.timer);
    this.instances.clear();
    this.cards.clear();
  }
}

function append<Labels>(
  all: Map<string, Series<Labels>>,
  key: string,
  labels: Labels,
  at: number,
  utilization: number,
  memoryUsed: number | null,
  memoryFree: number | null,
): void {
  let series = all.get(key);
  if (!series) {
    series = { labels, at: [], utilization: [], memoryUsed: [], memoryFree: [] };
    all.set(key, series);
  }
  series.at.push(at);
  series.utilization.push(utilization);
  series.memoryUsed.push(memoryUsed ?? Number.NaN);
  series.memoryFree.push(memoryFree ?? Number.NaN);
}

function forget<Labels>(all: Map<string, Series<Labels>>, oldest: number): void {
  for (const [key, series] of all) {
    let drop = 0;
    while (drop < series.at.length && (series.at[drop] ?? 0) < oldest) drop += 1;
    if (drop === series.at.length) {
      all.delete(key);
      continue;
    }
    if (drop === 0) continue;
    series.at.splice(0, drop);
    series.utilization.splice(0, drop);
    series.memoryUsed.splice(0, drop);
    series.memoryFree.splice(0, drop);
  }
}

/** Mean of the known values (not NaN) from `from` on; null with none. */
function meanOf(at: readonly number[], values: readonly number[], from: number): number | null {
  let sum = 0;
  let count = 0;
  for (let index = at.length - 1; index >= 0 && (at[index] ?? 0) >= from; index--) {
    const value = values[index] ?? Number.NaN;
    if (Number.isNaN(value)) continue;
    sum += value;
    count += 1;
  }
  return count > 0 ? sum / count : null;
}

/**
 * Mean over the window, the span sampled, and the trailing run under the threshold: from the
 * series' newest point back to the oldest still under it, as far as points are kept (at least
 * `--idle-after`). A series that stopped (its pod went away) reads up to its own last point.
 */
function figuresOf<Labels>(
  series: Series<Labels>,
  query: UsageQuery,
  from: number,
): UtilizationFigures {
  const { at, utilization } = series;
  const last = at.length - 1;
  if (last < 0) return { meanPercent: null, sampledSeconds: 0, quietSeconds: null };
  let first = last;
  while (first > 0 && (at[first - 1] ?? 0) >= from) first -= 1;
  const newest = at[last] ?? 0;
  const inWindow = (at[first] ?? 0) >= from;
  return {
    meanPercent: inWindow ? meanOf(at, utilization, from) : null,
    sampledSeconds: inWindow ? (newest - (at[first] ?? newest)) / 1000 : 0,
    quietSeconds: quietSecondsOf(lookbacks(at, utilization), query.idleThresholdPercent),
  };
}

/**
 * From the newest point back, one look-back per point: how far it reaches and the highest
 * value since; `quietSecondsOf` stops at the first that is not quiet.
 */
function* lookbacks(
  at: readonly number[],
  utilization: readonly number[],
): Generator<QuietLookback> {
  const newest = at.at(-1) ?? 0;
  let highest = Number.NEGATIVE_INFINITY;
  for (let index = at.length - 1; index >= 0; index--) {
    highest = Math.max(highest, utilization[index] ?? 0);
    yield { seconds: (newest - (at[index] ?? newest)) / 1000, highestPercent: highest };
  }
}
