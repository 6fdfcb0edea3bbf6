import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  ListWatch,
  Watch,
} from '@kubernetes/client-node';
import { controllerOf } from '@mgpu/shared';

export type InformerEvent<T> =
  | { type: 'upsert'; object: T }
  | { type: 'delete'; object: T }
  /** The informer re-listed (start, restart, or after 410 Gone): consumers should reconcile from `list()`. */
  | { type: 'resync' };

export interface InformerHealth {
  synced: boolean;
  /** The last error talking to the API server, cleared once a watch is back. */
  lastError?: string;
  restarts: number;
}

/** Callbacks by kind of change, as a controller registers them (client-go's event handlers). */
export interface InformerHandlers<T> {
  add?: (object: T) => void;
  update?: (object: T) => void;
  delete?: (object: T) => void;
}

export interface InformerOptions {
  /** Keep the index of objects by their controller's uid from the start (see `controlledBy`). */
  indexControllers?: boolean;
}

/** What a controller reads from its informer's cache. */
export interface WatchedCache<T extends KubernetesObject> {
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): readonly T[];
  /**
   * The objects whose controller (the ownerReference with controller=true) has this uid, from
   * an index kept as the cache changes (client-go's controller indexers).
   */
  controlledBy(uid: string): readonly T[];
  stop(): Promise<void>;
}

const identityOf = (object: KubernetesObject) =>
  `${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;

/**
 * The cache's objects by a key of theirs, kept current with every event (client-go's indexers):
 * a look-up costs the same with ten objects or ten thousand, where a scan of `list()` does not.
 */
export class InformerIndex<T extends KubernetesObject> {
  private readonly byKey = new Map<string, Map<string, T>>();
  /** Each indexed object's key, to move it when an update changes its key. */
  private readonly keyOfIdentity = new Map<string, string>();

  constructor(private readonly keyOf: (object: T) => string | undefined) {}

  get(key: string): T[] {
    return [...(this.byKey.get(key)?.values() ?? [])];
  }

  rebuild(objects: readonly T[]): void {
    this.byKey.clear();
    this.keyOfIdentity.clear();
    for (const object of objects) this.put(object);
  }

  apply(event: InformerEvent<T>, objects: () => readonly T[]): void {
    if (event.type === 'resync') this.rebuild(objects());
    else {
      this.remove(event.object);
      if (event.type === 'upsert') this.put(event.object);
    }
  }

  private put(object: T): void {
    const key = this.keyOf(object);
    if (key === undefined) return;
    const identity = identityOf(object);
    const objects = this.byKey.get(key) ?? new Map<string, T>();
    this.byKey.set(key, objects);
    objects.set(identity, object);
    this.keyOfIdentity.set(identity, key);
  }

  private remove(object: T): void {
    const identity = identityOf(object);
    const key = this.keyOfIdentity.get(identity);
    if (key === undefined) return;
    this.keyOfIdentity.delete(identity);
    const objects = this.byKey.get(key);
    objects?.delete(identity);
    if (objects?.size === 0) this.byKey.delete(key);
  }
}

/** The index `controlledBy` reads. */
const CONTROLLER_INDEX = 'controller-uid';
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5000;

/**
 * A watch that asks for BOOKMARKs (client-node's informer follows them, so its resourceVersion
 * stays recent and a restarted watch resumes instead of meeting 410 Gone), and tells the
 * informer when a watch starts: right after a list, the cache holds that list.
 */
class BookmarkingWatch extends Watch {
  constructor(
    kubeConfig: KubeConfig,
    private readonly starting: () => void,
  ) {
    super(kubeConfig);
  }

  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    this.starting();
    return super.watch(path, { ...queryParams, allowWatchBookmarks: true }, callback, done);
  }
}

/**
 * The one informer: list, then watch from the list's resourceVersion, with one cache per
 * resource fanned out to any number of handlers and listeners, and indexes kept current before
 * either hears of a change. client-node's ListWatch re-lists by itself on 410 Gone; it stops on
 * other errors, so this restarts it with a capped exponential backoff — that is what keeps
 * controllers and dashboards live across an API server restart.
 */
export class SharedInformer<T extends KubernetesObject> implements WatchedCache<T> {
  private readonly informer: ListWatch<T>;
  private readonly listeners = new Set<(event: InformerEvent<T>) => void>();
  private readonly handlers = new Set<InformerHandlers<T>>();
  private started?: Promise<void>;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private backoffMs = FIRST_BACKOFF_MS;
  readonly health: InformerHealth = { synced: false, restarts: 0 };
  private changes = 0;
  private readonly indexes = new Map<string, InformerIndex<T>>();
  /** Inside `attempt`, which announces the resync itself once the watch is up. */
  private attempting = false;
  private listed = false;
  private failedAttempt = false;

  constructor(
    kubeConfig: KubeConfig,
    readonly path: string,
    list: () => Promise<KubernetesListObject<T>>,
    options: InformerOptions = {},
  ) {
    const listed = async () => {
      const result = await list();
      this.listed = true;
      return result;
    };
    const watch = new BookmarkingWatch(kubeConfig, () => this.watchStarting());
    this.informer = new ListWatch<T>(path, watch, listed, false);
    this.informer.on('add', (object) => this.emit('add', object));
    this.informer.on('update', (object) => this.emit('update', object));
    this.informer.on('delete', (object) => this.emit('delete', object));
    this.informer.on('error', (error: unknown) => this.fail(error));
    if (options.indexControllers) this.controllerIndex();
  }

  /** Starts the list+watch once; resolves when the first attempt is over (see `health`). */
  start(): Promise<void> {
    this.started ??= this.attempt();
    return this.started;
  }

  /**
   * Resolves true once the cache has listed (client-go's WaitForCacheSync), or with
   * `health.synced` after `timeoutMs`: a caller that must not judge from an empty cache waits
   * this long at most, then says the cache is not there yet.
   */
  waitForSync(timeoutMs: number): Promise<boolean> {
    if (this.health.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve(this.health.synced);
      };
      const timer = setTimeout(done, timeoutMs);
      timer.unref?.();
      // `attempt` marks the cache synced, then announces the resync.
      const unsubscribe = this.subscribe((event) => {
        if (event.type === 'resync' && this.health.synced) done();
      });
    });
  }

  list(namespace?: string): readonly T[] {
    return this.informer.list(namespace);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  /**
   * The index named `name`, made on first use with `keyOf` (objects without a key are left
   * out); it is updated before handlers and listeners hear of a change.
   */
  index(name: string, keyOf: (object: T) => string | undefined): InformerIndex<T> {
    let index = this.indexes.get(name);
    if (index === undefined) {
      index = new InformerIndex(keyOf);
      index.rebuild(this.list());
      this.indexes.set(name, index);
    }
    return index;
  }

  controlledBy(uid: string): readonly T[] {
    return this.controllerIndex().get(uid);
  }

  /**
   * A controller's callbacks, called with each change after the indexes took it. Objects already
   * in the cache are handed to `add` at once (client-go's AddEventHandler on a running informer),
   * so a controller joining a shared informer late sees what the first one saw.
   */
  addHandlers(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    if (handlers.add) for (const object of this.list()) handlers.add(object);
    return () => this.handlers.delete(handlers);
  }

  subscribe(listener: (event: InformerEvent<T>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.informer.stop();
  }

  /** Grows with every change the cache saw: what is derived from `list()` is current while it stays. */
  get version(): number {
    return this.changes;
  }

  /** The index of objects by their controller's uid that `controlledBy` reads, kept from now on. */
  controllerIndex(): InformerIndex<T> {
    return this.index(CONTROLLER_INDEX, (object) => controllerOf(object)?.uid);
  }

  private emit(kind: 'add' | 'update' | 'delete' | 'resync', object?: T): void {
    this.changes++;
    const event: InformerEvent<T> =
      object === undefined || kind === 'resync'
        ? { type: 'resync' }
        : kind === 'delete'
          ? { type: 'delete', object }
          : { type: 'upsert', object };
    for (const index of this.indexes.values()) index.apply(event, () => this.list());
    if (object !== undefined && kind !== 'resync') {
      for (const handlers of this.handlers) handlers[kind]?.(object);
    }
    for (const listener of this.listeners) listener(event);
  }

  /** A watch is being opened; after a re-list the running watch loop did (410 Gone), say so. */
  private watchStarting(): void {
    if (!this.listed) return;
    this.listed = false;
    if (!this.attempting && !this.stopped) this.emit('resync');
  }

  /**
   * One list (when there is no resourceVersion to resume from) and watch. client-node reports a
   * failed list through the error callback and still resolves, hence the flag.
   */
  private async attempt(): Promise<void> {
    this.failedAttempt = false;
    this.attempting = true;
    try {
      await this.informer.start();
    } catch (error) {
      this.fail(error);
    } finally {
      this.attempting = false;
    }
    if (!this.failedAttempt && !this.stopped) {
      this.health.synced = true;
      this.health.lastError = undefined;
      this.backoffMs = FIRST_BACKOFF_MS;
      this.emit('resync');
    }
  }

  private fail(error: unknown): void {
    this.failedAttempt = true;
    this.health.lastError = error instanceof Error ? error.message : String(error);
    if (this.stopped || this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.health.restarts++;
      void this.attempt();
    }, delay);
    this.retryTimer.unref?.();
  }
}

/**
 * A controller's informer: handlers registered before the first list, and resolves once that
 * list is in the cache (or the first attempt failed: it keeps retrying with backoff).
 */
export async function startInformer<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  handlers: InformerHandlers<T>,
  options: InformerOptions = {},
): Promise<WatchedCache<T>> {
  const informer = new SharedInformer<T>(kubeConfig, path, list, options);
  informer.addHandlers(handlers);
  await informer.start();
  return informer;
}
