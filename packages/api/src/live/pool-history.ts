import {
  type ClusterHistory,
  type PoolSample,
  type PoolUsedBefore,
  pendingPodsPerPool,
  poolComputeUsed,
  type UtilizationReading,
} from '@mgpu/shared';
import type { ClusterViews } from '../cluster/cluster-views.js';
import type { CardUseAt } from '../usage/card-use.js';
import type { UsageRange } from '../usage/usage-source.js';

export interface PoolHistoryOptions {
  /** Between samples (default 10 s). */
  intervalMs?: number;
  /** How far back the history reaches (default an hour); the buffer holds retention / interval samples. */
  retentionMs?: number;
  /**
   * The cards' own utilisation by `cardKey` (the usage source's card series over a short window),
   * or null when there is no source or it did not answer: the pools' used compute beside their
   * allocated. Absent: the history has no used figures.
   */
  cardUse?: () => Promise<ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>> | null>;
  /**
   * The cards' use over the retention before the start, from a source that keeps history
   * (Prometheus), read once at start: the used compute chart then shows the past hour at once.
   * Null or absent: the history begins at the start.
   */
  cardUseBefore?: (range: UsageRange) => Promise<readonly CardUseAt[] | null>;
}

/** At most this many points of used compute before the start, however long the retention. */
const MAX_POINTS_BEFORE = 60;

interface Sample {
  at: number;
  pools: PoolSample[];
}

/**
 * The last hour (configurable) of per-pool figures, sampled every 10 s into a ring buffer of
 * fixed length: memory is bounded by pools × samples whatever the uptime. Each sample reads the
 * same pool summaries and pending pods as the dashboard and `/metrics` (cached per change of the
 * informers, so a quiet cluster costs nothing to sample).
 */
export class PoolHistory {
  readonly intervalMs: number;
  readonly retentionMs: number;
  private readonly ring: (Sample | undefined)[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = Date.now();
  /** The newest card reading, taken between samples so a sample never waits for the source. */
  private cardUse: ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>> | null = null;
  private reading = false;
  /** The past read at start, by card until the nodes are listed, then per pool. */
  private cardUseBefore: readonly CardUseAt[] = [];
  private usedBefore: PoolUsedBefore[] = [];

  constructor(
    /** The console's shared views: the same pools and pending pods as the dashboard. */
    private readonly views: ClusterViews,
    private readonly options: PoolHistoryOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 10_000;
    this.retentionMs = options.retentionMs ?? 60 * 60_000;
    this.ring = new Array(Math.max(1, Math.ceil(this.retentionMs / this.intervalMs)));
  }

  start(): void {
    this.startedAt = Date.now();
    void this.readCardUseBefore(this.startedAt);
    void this.readCardUse();
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Takes one sample now (the timer's work; tests call it to not wait 10 s). */
  sample(at = Date.now()): void {
    const { views } = this;
    // Until the nodes were listed once the cluster is unknown, not empty: no sample.
    if (!views.synced) return;
    this.settleUsedBefore();
    // The pending view's last result: at most one computation behind, never waited for here.
    const pending = pendingPodsPerPool(views.pending.latest().groups);
    const used = this.cardUse ? poolComputeUsed(views.nodeStates(), this.cardUse) : undefined;
    const pools = views.pools().map(
      (pool): PoolSample => ({
        pool: pool.pool,
        computeAllocatedPercent: pool.compute.allocated,
        computeAllocatablePercent: pool.compute.allocatable,
        ...(this.options.cardUse ? { computeUsedPercent: used?.get(pool.pool) ?? null } : {}),
        memoryAllocatedMiB: pool.memoryMiB.allocated,
        memoryAllocatableMiB: pool.memoryMiB.allocatable,
        strandedComputePercent: pool.stranded.computePercent,
        strandedMemoryMiB: pool.stranded.memoryMiB,
        largestFitComputePercent: pool.largestFit.computePercent,
        pendingPods: pending.get(pool.pool) ?? 0,
      }),
    );
    this.ring[this.next] = { at, pools };
    this.next = (this.next + 1) % this.ring.length;
    void this.readCardUse();
  }

  /** Reads the cards' use for the next sample; one read at a time, a failed one is unknown. */
  async readCardUse(): Promise<void> {
    if (!this.options.cardUse || this.reading) return;
    this.reading = true;
    try {
      this.cardUse = await this.options.cardUse();
    } catch {
      this.cardUse = null;
    } finally {
      this.reading = false;
    }
  }

  /**
   * Reads the retention's used compute before `end` (the start); a failed read leaves the
   * history beginning at the start, as without a source that keeps history.
   */
  async readCardUseBefore(end: number): Promise<void> {
    if (!this.options.cardUseBefore) return;
    const stepMs = Math.max(this.intervalMs, Math.ceil(this.retentionMs / MAX_POINTS_BEFORE));
    try {
      const points = await this.options.cardUseBefore({
        startMs: end - this.retentionMs,
        endMs: end,
        stepMs,
      });
      this.cardUseBefore = points?.filter((point) => point.at < end) ?? [];
    } catch {
      this.cardUseBefore = [];
    }
    this.settleUsedBefore();
  }

  /** The past per pool, once the nodes are listed (today's nodes place yesterday's cards). */
  private settleUsedBefore(): void {
    if (this.cardUseBefore.length === 0 || !this.views.synced) return;
    const states = this.views.nodeStates();
    const pools = this.views.pools();
    this.usedBefore = this.cardUseBefore.flatMap((point): PoolUsedBefore[] => {
      const used = poolComputeUsed(states, point.cards);
      // A time Prometheus had no card at all is not a point of the chart.
      if (used.size === 0) return [];
      const at = new Date(point.at).toISOString();
      return [
        {
          at,
          pools: pools.map((pool) => ({
            pool: pool.pool,
            computeAllocatablePercent: pool.compute.allocatable,
            computeUsedPercent: used.get(pool.pool) ?? null,
          })),
        },
      ];
    });
    this.cardUseBefore = [];
  }

  /** Samples oldest first; where the used figures come from is the procedure's to add. */
  snapshot(): Omit<ClusterHistory, 'usage'> {
    this.settleUsedBefore();
    // What the retention no longer covers goes, as the ring's oldest samples do.
    const since = new Date(Date.now() - this.retentionMs).toISOString();
    const usedBefore = this.usedBefore.filter((point) => point.at >= since);
    const ordered = [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)].filter(
      (sample): sample is Sample => sample !== undefined,
    );
    return {
      startedAt: new Date(this.startedAt).toISOString(),
      intervalMs: this.intervalMs,
      retentionMs: this.retentionMs,
      samples: ordered.map((sample) => ({
        at: new Date(sample.at).toISOString(),
        pools: sample.pools,
      })),
      ...(usedBefore.length > 0 ? { usedBefore } : {}),
    };
  }
}
