/**
 * The pool history read back from Prometheus (issue 30): with `--prometheus-url`, the console's
 * own per-pool gauges of `/metrics` (apps/bff/src/observability/metrics.ts), as Prometheus
 * scraped them over the history's retention, in the shape of `cluster.history`. Prometheus keeps
 * them whatever happens to the console, so the charts survive a restart, an upgrade and a change
 * of leader, and a replica started a minute ago shows the hour before it.
 *
 * The allocation figures come from Prometheus; the used compute stays what the console's own
 * history has (`PoolHistory`: read from the usage source since the start, and the range read at
 * start before it), joined onto the points it covers: reading every card's use over the whole
 * retention again every few seconds would cost Prometheus far more (a second of its CPU for one
 * instant read at 1,000 nodes × 8 cards, docs/performance.md) than the pools' few series do.
 */
import type { ClusterHistory, PoolSample } from '@mgpu/shared';
import type { PrometheusHttp, RangeSeries } from '../usage/prometheus-http.js';
import { STALE_FACTOR } from '../usage/shared-reads.js';
import { SharedRead } from './shared-read.js';

/** A sample's figures that the console exports as a gauge per pool, and the gauge's name. */
type ExportedFigure = Exclude<keyof PoolSample, 'pool' | 'computeUsedPercent'>;
const POOL_GAUGES: Readonly<Record<ExportedFigure, string>> = {
  computeAllocatedPercent: 'mgpu_pool_compute_allocated_percent',
  computeAllocatablePercent: 'mgpu_pool_compute_allocatable_percent',
  memoryAllocatedMiB: 'mgpu_pool_memory_allocated_mib',
  memoryAllocatableMiB: 'mgpu_pool_memory_allocatable_mib',
  strandedComputePercent: 'mgpu_pool_stranded_compute_percent',
  strandedMemoryMiB: 'mgpu_pool_stranded_memory_mib',
  largestFitComputePercent: 'mgpu_pool_largest_fit_compute_percent',
  pendingPods: 'mgpu_pending_pods',
};
const FIGURES = Object.keys(POOL_GAUGES) as ExportedFigure[];

/** At most this many points over the retention, however short the interval: a chart's width. */
export const MAX_HISTORY_POINTS = 360;
/** How long one read answers every caller (as `--usage-max-age`'s default does for usage). */
const DEFAULT_MAX_AGE_MS = 10_000;

export interface PrometheusHistoryOptions {
  /** The usage source's Prometheus (`PrometheusSource.http`): its URL, token and CA. */
  prometheus: Pick<PrometheusHttp, 'queryRange'>;
  /** How long one read is served to every caller (default 10 s). */
  maxAgeMs?: number;
  now?: () => number;
}

type RingHistory = Omit<ClusterHistory, 'usage' | 'source'>;
type PoolFigures = Omit<PoolSample, 'computeUsedPercent'>;
/** One point of the range read: the time (ms) and every pool that had figures then. */
interface PoolsAt {
  at: number;
  pools: PoolFigures[];
}

/** What a read asks for: the console's history's retention, a point every `stepMs`. */
interface Range {
  stepMs: number;
  retentionMs: number;
}

export class PrometheusHistory {
  private readonly now: () => number;
  /**
   * One read shared by every caller for `maxAgeMs`, then served while the next one runs (the
   * range is the same at every call: the console's history's settings).
   */
  private readonly points: SharedRead<PoolsAt[] | null, Range>;

  constructor(private readonly options: PrometheusHistoryOptions) {
    this.now = options.now ?? Date.now;
    this.points = new SharedRead({
      // Unreachable or refusing: the console's own history, as without Prometheus.
      read: (range) => this.readPools(this.now(), range).catch(() => null),
      maxAgeMs: options.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
      staleFactor: STALE_FACTOR,
      now: this.now,
    });
  }

  /**
   * The history from Prometheus over the console's own history's (`ring`) retention, a point
   * every interval (fewer when that gives more than `MAX_HISTORY_POINTS`), with its used compute;
   * null when Prometheus has none of the console's series (it does not scrape `--metrics-port`)
   * or does not answer, or its newest point is more than 3 steps old (it no longer scrapes the
   * console): the caller then shows the console's own history.
   */
  async snapshot(ring: RingHistory): Promise<RingHistory | null> {
    const fewest = Math.max(ring.intervalMs, ring.retentionMs / MAX_HISTORY_POINTS);
    // Prometheus's step is in seconds; whole seconds keep every read's points on one grid.
    const stepMs = Math.max(1, Math.ceil(fewest / 1000)) * 1000;
    const points = await this.points.get({ stepMs, retentionMs: ring.retentionMs });
    return points ? historyWithUse(points, ring, stepMs) : null;
  }

  private async readPools(now: number, range: Range): Promise<PoolsAt[] | null> {
    const step = range.stepMs / 1000;
    // On the step's grid, so two reads (and two replicas) give the same points.
    const end = Math.floor(now / range.stepMs) * step;
    const start = end - Math.floor(range.retentionMs / 1000);
    // Every replica exports the same figures (each from its own informers) and Prometheus keeps
    // one series per replica and per scrape target: `max by (pool)` makes one line per pool out
    // of them, where a sum would count the pools once per replica. During a rolling upgrade a
    // replica whose informers lag a moment shows the older figure; the larger one wins.
    const read = await Promise.all(
      FIGURES.map((figure) =>
        this.options.prometheus.queryRange(
          `max by (pool) (${POOL_GAUGES[figure]})`,
          start,
          end,
          step,
        ),
      ),
    );
    const points = poolsAt(read);
    // Prometheus that stopped scraping the console (its target gone, a scrape refused) still
    // answers with the hour before: the charts would stand still at that point while the
    // console's own history goes on. Beyond a few steps behind the read's end, the console's.
    const newest = points?.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
    return newest >= end * 1000 - STALE_STEPS * range.stepMs ? points : null;
  }
}

/** How many steps Prometheus's newest point of the console's series may lag the read's end. */
const STALE_STEPS = 3;

/** The range reads (one per figure, in `FIGURES`' order) as points, oldest first. */
function poolsAt(read: readonly RangeSeries[][]): PoolsAt[] | null {
  const byTime = new Map<number, Map<string, Partial<PoolFigures>>>();
  read.forEach((series, index) => {
    const figure = FIGURES[index];
    if (figure === undefined) return;
    for (const { labels, points } of series) {
      const pool = labels.pool;
      if (pool === undefined) continue;
      for (const { time, value } of points) {
        if (!Number.isFinite(value)) continue;
        const pools = byTime.get(time) ?? new Map<string, Partial<PoolFigures>>();
        byTime.set(time, pools);
        const figures = pools.get(pool) ?? { pool };
        pools.set(pool, figures);
        figures[figure] = value;
      }
    }
  });
  const points = [...byTime]
    .sort(([a], [b]) => a - b)
    .flatMap(([time, pools]): PoolsAt[] => {
      // A pool is a pool where it has a size; `mgpu_pending_pods` also counts pods no pool takes.
      const complete = [...pools.values()]
        .map((figures) => ({ pendingPods: 0, ...figures }))
        .filter((figures): figures is PoolFigures => FIGURES.every((f) => figures[f] !== undefined))
        .sort((a, b) => a.pool.localeCompare(b.pool));
      return complete.length > 0 ? [{ at: time * 1000, pools: complete }] : [];
    });
  return points.length > 0 ? points : null;
}

/** The console's used compute per pool at one time, from its samples or its read before them. */
interface UsedAt {
  at: number;
  byPool: ReadonlyMap<string, number | null>;
}

/**
 * Prometheus's points with the console's used compute joined on: each point takes the newest
 * used figure at or before it that is not older than the next one (nor than a few intervals),
 * unknown (null) elsewhere, never 0 for unknown. What the console read before Prometheus's first
 * point stays `usedBefore`, as the chart already draws it.
 */
function historyWithUse(
  points: readonly PoolsAt[],
  ring: RingHistory,
  stepMs: number,
): RingHistory {
  const { retentionMs } = ring;
  const first = points[0]?.at ?? 0;
  const used: UsedAt[] = [
    ...(ring.usedBefore ?? []).map((point) => ({
      at: Date.parse(point.at),
      byPool: new Map(point.pools.map((pool) => [pool.pool, pool.computeUsedPercent])),
    })),
    ...ring.samples.map((sample) => ({
      at: Date.parse(sample.at),
      byPool: new Map(sample.pools.map((pool) => [pool.pool, pool.computeUsedPercent ?? null])),
    })),
  ].sort((a, b) => a.at - b.at);
  // The console had a usage source when any of its samples carried the figure at all.
  const withUse =
    (ring.usedBefore?.length ?? 0) > 0 ||
    ring.samples.some((sample) => sample.pools.some((pool) => 'computeUsedPercent' in pool));
  // The read before the start is coarser than the samples: a point holds until the next one.
  const longestHold = 2 * Math.max(ring.intervalMs, stepMs, retentionMs / 60);
  // The newest used figure at or before the point being joined.
  let newest = -1;
  const samples = points.map((point) => {
    while ((used[newest + 1]?.at ?? Number.POSITIVE_INFINITY) <= point.at) newest++;
    const known = used[newest];
    // Until the next figure, and not across a gap: a time the console did not read is unknown.
    const figure = known && point.at - known.at < longestHold ? known : undefined;
    return {
      at: new Date(point.at).toISOString(),
      pools: point.pools.map((pool) =>
        withUse ? { ...pool, computeUsedPercent: figure?.byPool.get(pool.pool) ?? null } : pool,
      ),
    };
  });
  const usedBefore = (ring.usedBefore ?? []).filter((point) => Date.parse(point.at) < first);
  return {
    startedAt: new Date(first).toISOString(),
    intervalMs: stepMs,
    retentionMs,
    samples,
    ...(usedBefore.length > 0 ? { usedBefore } : {}),
  };
}
