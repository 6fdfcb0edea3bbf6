import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '@mgpu/kube-client';
import { controllerOf } from '@mgpu/shared';
import { type RateLimiter, type Reconcile, WorkQueue } from './work-queue.js';

/** What every controller of the embedded cluster hands back to whoever started it. */
export interface RunningController {
  stop(): Promise<void>;
  /** Resolves once the controller has nothing queued or in flight. */
  idle(): Promise<void>;
}

/** An informer's cache as the controller holds it: started, synced, stopped on stop(). */
export interface SyncedCache {
  stop(): Promise<void>;
}

export interface ControllerOptions {
  /** Keys reconciled at once (sample-controller's `workers`). */
  workers: number;
  /** How long a failed key waits; the work queue's default is client-go's. */
  rateLimiter?: RateLimiter;
  log?: (message: string) => void;
}

/**
 * A controller in the shape of Kubernetes' sample-controller: informers whose handlers only
 * queue keys (namespace/name), a wait until every informer's cache has synced, then workers on
 * a rate-limited work queue calling an idempotent `reconcile(key)` that reads the caches and
 * converges. A key whose reconcile throws is retried with backoff; one that succeeds is
 * forgotten, so its next failure backs off from the start again.
 *
 *     const controller = new Controller('replicaset', { workers: 4, log });
 *     const pods = await controller.informer(startInformer(…, { add: (pod) => controller.add(…) }));
 *     await controller.run(reconcile);
 */
export class Controller implements RunningController {
  private readonly queue: WorkQueue;
  private readonly informers: Promise<SyncedCache | undefined>[] = [];
  private reconcile: Reconcile | undefined;
  private stopped = false;

  constructor(
    readonly name: string,
    options: ControllerOptions,
  ) {
    const log = options.log ?? (() => undefined);
    this.queue = new WorkQueue(
      (key) => {
        if (this.reconcile === undefined) throw new Error(`${name}: reconcile before run()`);
        return this.reconcile(key);
      },
      {
        workers: options.workers,
        paused: true,
        onError: (key, error) => log(`${name}: ${key}: ${String(error)}`),
        ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      },
    );
  }

  /** Queues a key; before run() it waits for the workers (deduplicated like any other). */
  add(key: string): void {
    this.queue.add(key);
  }

  /** An informer handler that queues the object's own key. */
  readonly addObject = (object: KubernetesObject): void => this.add(objectKey(object));

  /**
   * An informer handler that queues the key of the object's controller when it is a `kind`
   * (sample-controller's handleObject): a pod's change wakes its ReplicaSet.
   */
  addControllerOf(kind: string): (object: KubernetesObject) => void {
    return (object) => {
      const owner = controllerOf(object);
      if (owner?.kind === kind)
        this.add(`${object.metadata?.namespace ?? 'default'}/${owner.name}`);
    };
  }

  /** Queues a key after a delay (a re-check a reconcile asks for, not a failure). */
  addAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  /** Keys waiting for a worker. */
  get length(): number {
    return this.queue.length;
  }

  /**
   * Tracks an informer being started: resolves with its cache once its first list is in (the
   * informer's handlers queue keys meanwhile; no worker runs before run()).
   */
  async informer<T extends SyncedCache>(starting: Promise<T>): Promise<T> {
    const tracked = starting.then(
      (cache) => cache,
      () => undefined,
    );
    this.informers.push(tracked);
    return starting;
  }

  /** Resolves once every informer handed to `informer()` has listed (client-go's WaitForCacheSync). */
  async waitForCacheSync(): Promise<void> {
    await Promise.all(this.informers);
  }

  /** Waits for every cache to sync, then starts the workers on `reconcile`. */
  async run(reconcile: Reconcile): Promise<void> {
    await this.waitForCacheSync();
    if (this.stopped) return;
    this.reconcile = reconcile;
    this.queue.start();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  /** Ends the workers (a reconcile under way finishes) and every informer. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.stop();
    const caches = await Promise.all(this.informers);
    await Promise.allSettled(caches.map((cache) => cache?.stop()));
  }
}
