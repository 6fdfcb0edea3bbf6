import type {
  KubeConfig,
  KubernetesObject,
  V1Pod,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';
import {
  type InformerHandlers,
  objectKey,
  type SharedInformer,
  SharedInformerFactory,
  type WatchedCache,
} from '@mgpu/kube-client';
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
  /** A factory the controller made for itself (no one handed it one): stopped with it. */
  ownInformers?: SharedInformerFactory;
}

/** What every controller's start function takes besides the kubeconfig. */
export interface StartControllerOptions {
  log?: (message: string) => void;
  /** The process's informers, shared with the other controllers; absent: the controller's own. */
  informers?: SharedInformerFactory;
}

/**
 * The informers a controller reads (the shared factory, or one of its own that it stops) and
 * what its `Controller` takes from the start options besides `workers`.
 */
export function controllerInformers(
  kubeConfig: KubeConfig,
  options: StartControllerOptions,
): {
  informers: SharedInformerFactory;
  controllerOptions: Pick<ControllerOptions, 'log' | 'ownInformers'>;
} {
  const log = options.log ? { log: options.log } : {};
  if (options.informers) return { informers: options.informers, controllerOptions: log };
  const informers = new SharedInformerFactory(kubeConfig);
  return { informers, controllerOptions: { ...log, ownInformers: informers } };
}

/** The object a controller's pods point back to (their controller ownerReference). */
export interface PodOwner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/**
 * A pod of `template` that `owner` controls (kube-controller-manager's GetPodFromTemplate):
 * `<owner>-<random>` names, the template's labels, annotations and spec.
 */
export function podFromTemplate(
  template: V1PodTemplateSpec | undefined,
  owner: PodOwner,
  namespace: string,
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.name}-`,
      namespace,
      labels: { ...template?.metadata?.labels },
      ...(template?.metadata?.annotations
        ? { annotations: { ...template.metadata.annotations } }
        : {}),
      ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }],
    },
    spec: template?.spec ?? { containers: [] },
  };
}

/**
 * A controller in the shape of Kubernetes' sample-controller: informers whose handlers only
 * queue keys (namespace/name), a wait until every informer's cache has synced, then workers on
 * a rate-limited work queue calling an idempotent `reconcile(key)` that reads the caches and
 * converges. A key whose reconcile throws is retried with backoff; one that succeeds is
 * forgotten, so its next failure backs off from the start again.
 *
 *     const controller = new Controller('replicaset', { workers: 4, log });
 *     const pods = controller.owned(informers.pods(), 'ReplicaSet');
 *     const replicaSets = controller.watch(informers.replicaSets());
 *     await controller.run(reconcile);
 */
export class Controller implements RunningController {
  private readonly queue: WorkQueue;
  private readonly informers: Promise<SyncedCache | undefined>[] = [];
  /** First lists of the shared informers this controller follows. */
  private readonly syncs: Promise<void>[] = [];
  /** Takes this controller's handlers off each shared informer. */
  private readonly detach: (() => void)[] = [];
  private readonly ownInformers: SharedInformerFactory | undefined;
  private reconcile: Reconcile | undefined;
  private stopped = false;

  constructor(
    readonly name: string,
    options: ControllerOptions,
  ) {
    const log = options.log ?? (() => undefined);
    this.ownInformers = options.ownInformers;
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

  /**
   * Follows a shared informer: each change runs `handlers` (by default it queues the object's
   * own key), its first list counts for waitForCacheSync, and stop() takes the handlers off;
   * the informer itself belongs to its factory.
   */
  watch<T extends KubernetesObject>(
    informer: SharedInformer<T>,
    handlers: InformerHandlers<T> | ((object: T) => void) = this.addObject,
  ): WatchedCache<T> {
    const callbacks =
      typeof handlers === 'function'
        ? { add: handlers, update: handlers, delete: handlers }
        : handlers;
    this.detach.push(informer.addHandlers(callbacks));
    this.syncs.push(informer.start());
    return informer;
  }

  /**
   * The objects of `informer` that a `kind` controls, by its uid (`controlledBy`), each change
   * waking that controller's key: a ReplicaSet's pods, a Deployment's ReplicaSets.
   */
  owned<T extends KubernetesObject>(informer: SharedInformer<T>, kind: string): WatchedCache<T> {
    informer.controllerIndex();
    return this.watch(informer, this.addControllerOf(kind));
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
    await Promise.all([...this.informers, ...this.syncs]);
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
    for (const detach of this.detach) detach();
    const caches = await Promise.all(this.informers);
    await Promise.allSettled(caches.map((cache) => cache?.stop()));
    await this.ownInformers?.stop();
  }
}
