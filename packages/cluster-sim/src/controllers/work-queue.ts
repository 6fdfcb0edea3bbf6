import { TokenBucket } from './token-bucket.js';

/**
 * How long a failed key waits before its retry: client-go's `workqueue.RateLimiter`. `when` is
 * asked once per failure, `forget` once the key succeeds.
 */
export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  /** Failures of `key` since it last succeeded. */
  retries(key: string): number;
}

/** Per key: `baseDelayMs` × 2^(failures − 1), capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialBackoff implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly baseDelayMs: number,
    private readonly maxDelayMs: number,
  ) {}

  when(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (failures - 1));
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * Over all keys: a token bucket of `burst` retries refilled at `perSecond` (client-go's
 * BucketRateLimiter), so a broken API server is not hammered by every failing key at once.
 */
export class OverallRateLimit implements RateLimiter {
  private readonly bucket: TokenBucket;

  constructor(perSecond: number, burst: number, clock: () => number = () => performance.now()) {
    this.bucket = new TokenBucket(perSecond, burst, clock);
  }

  /** Reserves a token, possibly one not yet refilled: the wait is until it will be. */
  when(): number {
    return this.bucket.reserve();
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The longest wait any of the limiters asks for (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiters implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: string): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.retries(key)));
  }
}

/**
 * client-go's DefaultControllerRateLimiter (per-key exponential backoff, and 10 retries a
 * second with bursts of 100 over all keys), with this cluster's shorter per-key delays: its
 * controllers share a process with the API server, so a retry after 20 ms is cheap.
 */
export const defaultControllerRateLimiter = (baseDelayMs = 20, maxDelayMs = 5000): RateLimiter =>
  new MaxOfRateLimiters(
    new ItemExponentialBackoff(baseDelayMs, maxDelayMs),
    new OverallRateLimit(10, 100),
  );

/**
 * A work queue in the manner of client-go's: keys (namespace/name) are deduplicated while they
 * wait, a key is never processed by two workers at once (a key added while it is processed
 * runs again afterwards), and failures retry with per-key exponential backoff. Workers pick keys
 * up on the next turn of the event loop, as client-go's workers pull them: the events of one
 * watch chunk (a pod marked for deletion, then gone) reach the cache first, so a reconcile
 * reads the latest state once instead of acting on each step.
 */
export interface WorkQueueOptions {
  /** Keys processed at once. */
  workers?: number;
  /** The per-key backoff of the default rate limiter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long failed keys wait (default: `defaultControllerRateLimiter`). */
  rateLimiter?: RateLimiter;
  /**
   * Hold keys until `start()`: a controller queues what its informers list and starts its
   * workers only once every cache has synced.
   */
  paused?: boolean;
  /** Called when a reconcile throws; the key is retried with backoff. */
  onError?: (key: string, error: unknown) => void;
}

export type Reconcile = (key: string) => Promise<void>;

export class WorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly waiting = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private paused: boolean;
  private pumping: NodeJS.Immediate | undefined;
  private idleResolvers: (() => void)[] = [];
  private readonly workers: number;
  private readonly rateLimiter: RateLimiter;

  constructor(
    private readonly reconcile: Reconcile,
    private readonly options: WorkQueueOptions = {},
  ) {
    this.workers = options.workers ?? 4;
    this.rateLimiter =
      options.rateLimiter ?? defaultControllerRateLimiter(options.baseDelayMs, options.maxDelayMs);
    this.paused = options.paused ?? false;
  }

  /** Starts the workers of a queue made `paused`. */
  start(): void {
    if (!this.paused) return;
    this.paused = false;
    this.schedulePump();
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queue.push(key);
    this.schedulePump();
  }

  /** Adds the key after its rate limiter's delay (client-go's AddRateLimited). */
  addRateLimited(key: string): void {
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** The key succeeded: its next failure starts the backoff afresh. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** Failures of `key` since it last succeeded. */
  retries(key: string): number {
    return this.rateLimiter.retries(key);
  }

  private schedulePump(): void {
    if (this.paused) return;
    this.pumping ??= setImmediate(() => {
      this.pumping = undefined;
      this.pump();
    });
  }

  /** Adds the key after a delay (a later add of the same key replaces an earlier timer). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(key);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.timers.set(key, timer);
  }

  /** Resolves once nothing waits or runs (tests and benchmarks use it). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  stop(): void {
    this.stopped = true;
    if (this.pumping) clearImmediate(this.pumping);
    this.pumping = undefined;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.head = 0;
    this.waiting.clear();
  }

  private isIdle(): boolean {
    return this.length === 0 && this.active === 0;
  }

  private next(): string | undefined {
    if (this.head >= this.queue.length) return undefined;
    const key = this.queue[this.head];
    this.head += 1;
    // Compact now and then so the array does not grow without bound.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return key;
  }

  private pump(): void {
    while (!this.stopped && !this.paused && this.active < this.workers) {
      const key = this.next();
      if (key === undefined) break;
      this.waiting.delete(key);
      this.processing.add(key);
      this.active += 1;
      void this.run(key);
    }
    if (this.isIdle()) {
      const resolvers = this.idleResolvers;
      this.idleResolvers = [];
      for (const resolve of resolvers) resolve();
    }
  }

  private async run(key: string): Promise<void> {
    try {
      await this.reconcile(key);
      this.forget(key);
    } catch (error) {
      this.options.onError?.(key, error);
      this.addRateLimited(key);
    } finally {
      this.processing.delete(key);
      this.active -= 1;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
