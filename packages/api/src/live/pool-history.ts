import { hostname } from 'node:os';
import type { Leadership } from '@mgpu/kube-client';
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
import type { HistorySample, PublishedHistory } from './history-codec.js';
import { type HistoryStore, PublishedHistoryReader } from './history-store.js';

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
  /**
   * Whether this replica holds the console's lease: only the leader samples, so two replicas
   * never keep two histories of one cluster. Absent: this process always samples.
   */
  leadership?: Leadership;
  /**
   * Where the leader publishes its ring (the `<prefix>-pool-history` ConfigMap): the other
   * replicas answer from it, and the next leader continues it. Absent: the history lives and
   * dies with this process.
   */
  store?: HistoryStore;
  /** Between the leader's publications (default 15 s). */
  publishIntervalMs?: number;
  /** How old a follower's copy of the published history may be before it is read again (5 s). */
  readIntervalMs?: number;
  /** Who samples, as the published history names it (default the host name: the pod's). */
  replica?: string;
  /** Where a store that cannot be read or written is said (once, until it works again). */
  log?: (message: string) => void;
}

/** At most this many points of used compute before the start, however long the retention. */
const MAX_POINTS_BEFORE = 60;
/**
 * Behind a round-robin Service the leader answers from its live ring and a follower from the
 * publication: published often and read again soon, a follower's newest point is at most
 * 15 + 5 s behind the leader's (a sample or two), not the newest minute appearing and vanishing
 * on alternate refreshes.
 */
const PUBLISH_INTERVAL_MS = 15_000;
const READ_INTERVAL_MS = 5_000;

/** What `cluster.history` answers, but where the used compute comes from. */
export type PoolHistorySnapshot = Omit<ClusterHistory, 'usage'>;

/**
 * The last hour (configurable) of per-pool figures, sampled every 10 s into a ring buffer of
 * fixed length: memory is bounded by pools × samples whatever the uptime. Each sample reads the
 * same pool summaries and pending pods as the dashboard and `/metrics` (cached per change of the
 * informers, so a quiet cluster costs nothing to sample).
 *
 * With several replicas only the leader samples and publishes its ring to the store every 15 s;
 * a replica that becomes leader first continues the published ring, so the history survives a
 * leader change and a rolling upgrade, less at most the last publication interval.
 */
export class PoolHistory {
  readonly intervalMs: number;
  readonly retentionMs: number;
  private readonly ring: (HistorySample | undefined)[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = Date.now();
  /** The newest card reading, taken between samples so a sample never waits for the source. */
  private cardUse: ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>> | null = null;
  private reading = false;
  /** The past read at start, by card until the nodes are listed, then per pool. */
  private cardUseBefore: readonly CardUseAt[] = [];
  private usedBefore: PoolUsedBefore[] = [];
  /** Whether this process samples now: it leads (or always, without a lease). */
  private leading = false;
  /** Leading, and the published ring was continued (or there was none): ours may replace it. */
  private continued = false;
  private loading = false;
  private publication: Promise<void> | undefined;
  private publishedAt = Number.NEGATIVE_INFINITY;
  /** The last publication succeeded: the history is kept in the cluster, not only here. */
  private published = false;
  /** A failed read of the store was said and no read has worked since: not said again. */
  private readFailing = false;
  /** A failed write was said and no write has worked since. */
  private writeFailing = false;
  private unsubscribe: (() => void) | undefined;
  private readonly reader: PublishedHistoryReader | undefined;
  private readonly replica: string;

  constructor(
    /** The console's shared views: the same pools and pending pods as the dashboard. */
    private readonly views: ClusterViews,
    private readonly options: PoolHistoryOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 10_000;
    this.retentionMs = options.retentionMs ?? 60 * 60_000;
    this.ring = new Array(Math.max(1, Math.ceil(this.retentionMs / this.intervalMs)));
    this.replica = options.replica ?? hostname();
    this.reader =
      options.store &&
      new PublishedHistoryReader(
        options.store,
        options.readIntervalMs ?? READ_INTERVAL_MS,
        (error) => this.readDone(error),
      );
  }

  start(): void {
    this.startedAt = Date.now();
    void this.readCardUseBefore(this.startedAt);
    void this.readCardUse();
    const { leadership } = this.options;
    this.unsubscribe = leadership?.onChange((leading) => this.leadershipChanged(leading));
    this.leadershipChanged(leadership?.leading ?? true);
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Stops sampling; a leader publishes what it sampled since its last publication first, so a
   * rolling upgrade loses nothing (stop this before the lease is released).
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.unsubscribe?.();
    if (this.leading && this.continued) {
      // One in flight has fewer samples than there are now: after it, the last one.
      await this.publication;
      await this.publish();
    }
    this.leading = false;
  }

  /** The timer's work: the leader samples, and publishes when the interval has passed. */
  private tick(): void {
    if (!this.leading) return;
    this.sample();
    this.continuePublished();
    this.publishWhenDue();
  }

  private leadershipChanged(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.continued = this.options.store === undefined;
    if (!leading) return;
    // What this process sampled when it led before is in the published ring, with what the
    // leaders after it sampled: the ring restarts here and is continued from there. Until it
    // is, `snapshot()` answers from the published ring, as a follower's does.
    if (this.options.store) {
      this.ring.fill(undefined);
      this.next = 0;
      this.startedAt = Date.now();
    }
    this.sample();
    this.continuePublished();
  }

  /** A new leader reads the published ring (again at each tick until a read succeeds). */
  private continuePublished(): void {
    const { store } = this.options;
    if (!store || this.continued || this.loading) return;
    this.loading = true;
    store
      .load()
      .then(
        (published) => {
          this.readDone(undefined);
          if (!this.leading) return;
          if (published) this.continueFrom(published);
          this.continued = true;
          this.publishWhenDue();
        },
        (error: unknown) => this.readDone(error),
      )
      .finally(() => {
        this.loading = false;
      });
  }

  /** The published samples older than this leader's first, within the retention, go first. */
  private continueFrom(published: PublishedHistory): void {
    const own = this.ordered();
    const first = own[0]?.at ?? Number.POSITIVE_INFINITY;
    const since = Date.now() - this.retentionMs;
    const earlier = published.samples.filter((sample) => sample.at < first && sample.at >= since);
    if (earlier.length === 0) return;
    const samples = [...earlier, ...own].slice(-this.ring.length);
    this.ring.fill(undefined);
    samples.forEach((sample, index) => {
      this.ring[index] = sample;
    });
    this.next = samples.length % this.ring.length;
    this.startedAt = Math.min(this.startedAt, published.startedAt);
  }

  private publishWhenDue(): void {
    const interval = this.options.publishIntervalMs ?? PUBLISH_INTERVAL_MS;
    if (Date.now() - this.publishedAt >= interval) void this.publish();
  }

  private publish(): Promise<void> {
    this.publication ??= this.publishNow().finally(() => {
      this.publication = undefined;
    });
    return this.publication;
  }

  /**
   * Whether this process may write the published ring now: the Lease's holder, asked at the
   * moment (its renew deadline may have passed before the change was told), and continuing.
   */
  private mayPublish(): boolean {
    return this.continued && (this.options.leadership?.leading ?? true);
  }

  private async publishNow(): Promise<void> {
    const { store } = this.options;
    if (!store || !this.mayPublish()) return;
    const history = () => ({
      sampledBy: this.replica,
      startedAt: this.startedAt,
      intervalMs: this.intervalMs,
      samples: this.ordered(),
    });
    try {
      let outcome = await store.publish(history());
      // Someone wrote since this replica last did (a previous leader's last write): written
      // over only while this replica still holds the Lease, never by a leader that was replaced.
      if (outcome === 'conflict' && this.mayPublish()) outcome = await store.publish(history());
      if (outcome === 'conflict') {
        if (this.mayPublish()) throw new Error('another replica keeps writing it');
        return;
      }
      this.published = true;
      if (this.writeFailing) this.options.log?.('pool history: published to the cluster again');
      this.writeFailing = false;
    } catch (error) {
      this.published = false;
      if (this.writeFailing) return;
      // Said once until a write works again: RBAC that forbids it does not fill the log.
      this.writeFailing = true;
      this.options.log?.(
        `pool history: cannot write the published history (${reasonOf(error)}); this replica's samples stay in its memory only, and a restart or a new leader loses them, until it can`,
      );
    } finally {
      // A failed write is tried again after the interval too, not at every sample.
      this.publishedAt = Date.now();
    }
  }

  /** A read of the published ring (a follower's, or a new leader's to continue it) ended. */
  private readDone(error: unknown): void {
    if (error === undefined) {
      if (this.readFailing) this.options.log?.('pool history: read the published history again');
      this.readFailing = false;
      return;
    }
    if (this.readFailing) return;
    this.readFailing = true;
    this.options.log?.(
      this.leading
        ? `pool history: cannot read the published history to continue it (${reasonOf(error)}); this replica samples on and publishes nothing until it can, so nothing older is overwritten`
        : `pool history: cannot read the leader's published history (${reasonOf(error)}); this replica shows the last one it read, if any, until it can`,
    );
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

  /**
   * What `cluster.history` answers: this process's ring while it samples and has continued the
   * published one (or without a store), else the published ring, read again at most every 5 s:
   * a new leader's first samples alone would hide the hour before it.
   */
  async snapshot(): Promise<PoolHistorySnapshot> {
    if (!this.reader || (this.leading && this.continued)) return this.ownSnapshot();
    const published = await this.reader.read();
    if (!published) return this.ownSnapshot();
    return this.historyOf(published.startedAt, published.intervalMs, published.samples, {
      sampledBy: published.sampledBy,
    });
  }

  /** This process's own samples, oldest first; where the used figures come from is the procedure's. */
  ownSnapshot(): PoolHistorySnapshot {
    return this.historyOf(this.startedAt, this.intervalMs, this.ordered(), {
      sampledBy: this.published ? this.replica : undefined,
    });
  }

  private ordered(): HistorySample[] {
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)].filter(
      (sample): sample is HistorySample => sample !== undefined,
    );
  }

  private historyOf(
    startedAt: number,
    intervalMs: number,
    samples: readonly HistorySample[],
    { sampledBy }: { sampledBy: string | undefined },
  ): PoolHistorySnapshot {
    this.settleUsedBefore();
    // What the retention no longer covers goes, as the ring's oldest samples do.
    const since = new Date(Date.now() - this.retentionMs).toISOString();
    const usedBefore = this.usedBefore.filter((point) => point.at >= since);
    return {
      startedAt: new Date(startedAt).toISOString(),
      intervalMs,
      retentionMs: this.retentionMs,
      samples: samples.map((sample) => ({
        at: new Date(sample.at).toISOString(),
        pools: sample.pools,
      })),
      ...(sampledBy !== undefined ? { sampledBy } : {}),
      ...(usedBefore.length > 0 ? { usedBefore } : {}),
    };
  }
}

const reasonOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
