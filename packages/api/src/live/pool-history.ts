import {
  type ClusterHistory,
  type PoolSample,
  pendingPodsPerPool,
  poolComputeUsed,
  type UtilizationReading,
} from '@mgpu/shared';
import type { ClusterViews } from '../cluster/cluster-views.js';

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
}

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

  /** Samples oldest first. */
  snapshot(): ClusterHistory {
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
    };
  }
}
