import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound, type KubeClients, mergePatch } from '@mgpu/kube-client';
import { EventCorrelator, type EventCorrelatorOptions } from './event-correlator.js';
import { TokenBucket } from './token-bucket.js';

export interface EventRecorderOptions {
  component: string;
  /**
   * Writes waiting at most (one per Event object, repeats coalesce). When full a repeat is
   * shed first; a first event is refused only when nothing but first events waits (logged).
   */
  maxPending?: number;
  /** Writes in flight at once. */
  concurrency?: number;
  /** Writes per second, in a token bucket of `burst`: the recorder never floods the API. */
  qps?: number;
  burst?: number;
  /** Attempts of one write before it is given up (client-go: 12). */
  maxAttempts?: number;
  correlator?: EventCorrelatorOptions;
  log?: (message: string) => void;
}

/** What became of the events recorded so far. */
export interface EventRecorderStats {
  /** Events the caller recorded. */
  emitted: number;
  /** Successful writes: creates of new Events and patches of an Event's count. */
  creates: number;
  patches: number;
  /** Occurrences folded into a write already waiting (one write carries their count). */
  coalesced: number;
  /** Repeats the per-object spam filter held back (counted; the next write carries them). */
  spamHeld: number;
  /** Repeats (count updates) shed because the queue was full or their write kept failing. */
  repeatsShed: number;
  /** First events of an Event object that were never written: an outcome nobody can see. */
  outcomesLost: number;
  pending: number;
}

interface PendingWrite {
  key: string;
  event: CoreV1Event;
  attempts: number;
}

const isoSeconds = (date: Date | undefined) =>
  (date ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Writes Kubernetes Events in the background, like client-go's broadcaster and correlator:
 * the caller never waits for the API; identical events become one Event whose count grows,
 * similar ones are combined; writes are rate-limited and bounded, and when the API cannot
 * keep up the queue sheds count updates, never silently the first Event of an object.
 */
export class EventRecorder {
  private readonly correlator: EventCorrelator;
  /** Insertion order is send order; one entry per Event object. */
  private readonly pending = new Map<string, PendingWrite>();
  /** Keys of pending writes whose Event already exists: the ones to shed when full. */
  private readonly pendingRepeats = new Set<string>();
  private readonly inFlight = new Set<string>();
  /** Keys whose Event the API holds, so a later occurrence patches instead of creating. */
  private readonly created = new Set<string>();
  private readonly stats_: Omit<EventRecorderStats, 'pending'> = {
    emitted: 0,
    creates: 0,
    patches: 0,
    coalesced: 0,
    spamHeld: 0,
    repeatsShed: 0,
    outcomesLost: 0,
  };
  private readonly writes: TokenBucket;
  private wakeTimer: NodeJS.Timeout | undefined;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private idleResolvers: (() => void)[] = [];

  constructor(
    private readonly clients: KubeClients,
    private readonly options: EventRecorderOptions,
  ) {
    this.correlator = new EventCorrelator(options.correlator);
    this.writes = new TokenBucket(options.qps ?? 100, options.burst ?? 200);
  }

  private get maxPending() {
    return this.options.maxPending ?? 20_000;
  }

  /** Records an event about a pod. */
  pod(pod: V1Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.stopped) return;
    this.stats_.emitted += 1;
    const namespace = pod.metadata?.namespace ?? 'default';
    const correlated = this.correlator.correlate({
      metadata: { namespace },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: pod.metadata?.name ?? '',
        namespace,
        ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      },
      type,
      reason,
      message,
      source: { component: this.options.component },
      reportingComponent: this.options.component,
    });
    if (correlated.skip) {
      this.stats_.spamHeld += 1;
      return;
    }
    this.enqueue(correlated.key, correlated.event, 0);
    this.pump();
  }

  stats(): EventRecorderStats {
    return { ...this.stats_, pending: this.pending.size };
  }

  /** Resolves once every queued event is written (or given up). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.pendingRepeats.clear();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
    this.settle();
  }

  private enqueue(key: string, event: CoreV1Event, attempts: number): void {
    const waiting = this.pending.get(key);
    if (waiting) {
      // The waiting write takes the newer count: one request for both occurrences.
      waiting.event = event;
      this.stats_.coalesced += 1;
      return;
    }
    const repeat = this.created.has(key);
    if (this.pending.size >= this.maxPending && !this.makeRoom(repeat)) return;
    this.pending.set(key, { key, event, attempts });
    if (repeat) this.pendingRepeats.add(key);
  }

  /** Frees one place in a full queue: a repeat goes, never an object's first Event. */
  private makeRoom(forRepeat: boolean): boolean {
    if (forRepeat) {
      this.stats_.repeatsShed += 1;
      return false;
    }
    const oldestRepeat = this.pendingRepeats.values().next();
    if (!oldestRepeat.done) {
      this.pendingRepeats.delete(oldestRepeat.value);
      this.pending.delete(oldestRepeat.value);
      this.stats_.repeatsShed += 1;
      return true;
    }
    this.loseOutcome('queue full of first events');
    return false;
  }

  private loseOutcome(why: string): void {
    this.stats_.outcomesLost += 1;
    const lost = this.stats_.outcomesLost;
    if (lost === 1 || lost % 100 === 0) {
      this.options.log?.(`events: ${lost} events never written (${why})`);
    }
  }

  private next(): PendingWrite | undefined {
    for (const write of this.pending.values()) {
      // One write per Event at a time: a patch must not overtake the create it updates.
      if (!this.inFlight.has(write.key)) return write;
    }
    return undefined;
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < (this.options.concurrency ?? 4)) {
      const write = this.next();
      if (write === undefined) break;
      if (!this.writes.tryTake()) {
        this.wakeTimer ??= setTimeout(() => {
          this.wakeTimer = undefined;
          this.pump();
        }, this.writes.msUntilToken());
        return;
      }
      this.pending.delete(write.key);
      this.pendingRepeats.delete(write.key);
      this.inFlight.add(write.key);
      void this.send(write).finally(() => {
        this.inFlight.delete(write.key);
        this.pump();
      });
    }
    this.settle();
  }

  /** recordToSink: patch the count of a known Event, create a new one, fall back either way. */
  private async send(write: PendingWrite): Promise<void> {
    const { key, event } = write;
    const namespace = event.metadata.namespace ?? 'default';
    const name = event.metadata.name ?? '';
    const patch = this.created.has(key);
    try {
      if (patch) {
        await this.clients.core.patchNamespacedEvent(
          {
            name,
            namespace,
            body: {
              count: event.count,
              lastTimestamp: isoSeconds(event.lastTimestamp),
              message: event.message,
            },
          },
          mergePatch(),
        );
        this.stats_.patches += 1;
      } else {
        await this.clients.core.createNamespacedEvent({ namespace, body: event });
        this.created.add(key);
        this.stats_.creates += 1;
      }
    } catch (error) {
      if (patch && isNotFound(error)) {
        // The Event expired or was deleted: write it anew with the count so far.
        this.created.delete(key);
        this.retry({ ...write, attempts: write.attempts + 1 }, error);
      } else if (!patch && isConflict(error)) {
        // Already there (a create that answered too late): update it instead.
        this.created.add(key);
        this.retry({ ...write, attempts: write.attempts + 1 }, error);
      } else {
        this.retry({ ...write, attempts: write.attempts + 1 }, error);
      }
    }
    // Bounded memory: the keys of Events the correlator no longer remembers can go.
    if (this.created.size > (this.options.correlator?.cacheSize ?? 4096) * 2) {
      const oldest = this.created.values().next();
      if (!oldest.done) this.created.delete(oldest.value);
    }
  }

  private retry(write: PendingWrite, error: unknown): void {
    if (this.stopped) return;
    if (write.attempts >= (this.options.maxAttempts ?? 6)) {
      const what = `${write.event.involvedObject.namespace}/${write.event.involvedObject.name}`;
      if (this.created.has(write.key)) this.stats_.repeatsShed += 1;
      else this.loseOutcome(`${what}: ${String(error)}`);
      return;
    }
    const timer = setTimeout(
      () => {
        this.retryTimers.delete(timer);
        // A newer occurrence waiting for the same Event already carries a higher count.
        if (!this.pending.has(write.key)) this.enqueue(write.key, write.event, write.attempts);
        this.pump();
      },
      Math.min(10_000, 100 * 2 ** write.attempts),
    );
    this.retryTimers.add(timer);
  }

  private isIdle(): boolean {
    return (
      this.stopped ||
      (this.pending.size === 0 && this.inFlight.size === 0 && this.retryTimers.size === 0)
    );
  }

  private settle(): void {
    if (!this.isIdle()) return;
    const resolvers = this.idleResolvers;
    this.idleResolvers = [];
    for (const resolve of resolvers) resolve();
  }
}
