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
  baseDelayMs?: number;
  maxDelayMs?: number;
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
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;
  private pumping: NodeJS.Immediate | undefined;
  private idleResolvers: (() => void)[] = [];
  private readonly workers: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly reconcile: Reconcile,
    private readonly options: WorkQueueOptions = {},
  ) {
    this.workers = options.workers ?? 4;
    this.baseDelayMs = options.baseDelayMs ?? 20;
    this.maxDelayMs = options.maxDelayMs ?? 5000;
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
    while (!this.stopped && this.active < this.workers) {
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
      this.failures.delete(key);
    } catch (error) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.options.onError?.(key, error);
      this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (failures - 1)));
    } finally {
      this.processing.delete(key);
      this.active -= 1;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
