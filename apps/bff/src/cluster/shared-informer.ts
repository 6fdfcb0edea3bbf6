import {
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
} from '@kubernetes/client-node';

export type InformerEvent<T> =
  | { type: 'upsert'; object: T }
  | { type: 'delete'; object: T }
  /** The informer re-listed (start, or after 410 Gone): consumers should reconcile from `list()`. */
  | { type: 'resync' };

export interface InformerHealth {
  synced: boolean;
  /** The last error talking to the API server, cleared once a watch is back. */
  lastError?: string;
  restarts: number;
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

/**
 * One list+watch per resource per process, fanned out to any number of listeners. client-node's
 * informer re-lists by itself on 410 Gone and follows BOOKMARKs (resourceVersion stays opaque);
 * it stops on other errors, so this restarts it with a capped backoff — that is what keeps
 * dashboards live across an API server restart.
 */
export class SharedInformer<T extends KubernetesObject> {
  private readonly informer;
  private readonly listeners = new Set<(event: InformerEvent<T>) => void>();
  private started?: Promise<void>;
  private stopped = false;
  private retryTimer?: NodeJS.Timeout;
  private backoffMs = 200;
  readonly health: InformerHealth = { synced: false, restarts: 0 };
  private changes = 0;
  private readonly indexes = new Map<string, InformerIndex<T>>();

  constructor(
    kubeConfig: KubeConfig,
    readonly path: string,
    list: () => Promise<KubernetesListObject<T>>,
  ) {
    this.informer = makeInformer<T>(kubeConfig, path, list);
    this.informer.on('add', (object) => this.emit({ type: 'upsert', object }));
    this.informer.on('update', (object) => this.emit({ type: 'upsert', object }));
    this.informer.on('delete', (object) => this.emit({ type: 'delete', object }));
    this.informer.on('error', (error: unknown) => this.fail(error));
  }

  /** Starts the list+watch once; resolves when the first attempt is over (see `health`). */
  start(): Promise<void> {
    this.started ??= this.attempt();
    return this.started;
  }

  list(): readonly T[] {
    return this.informer.list();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.informer.get(name, namespace);
  }

  /**
   * The index named `name`, made on first use with `keyOf` (objects without a key are left
   * out); it is updated before listeners hear of a change.
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

  private emit(event: InformerEvent<T>): void {
    this.changes++;
    for (const index of this.indexes.values()) index.apply(event, () => this.list());
    for (const listener of this.listeners) listener(event);
  }

  /**
   * One list (when there is no resourceVersion to resume from) and watch. client-node reports a
   * failed list through the error callback and still resolves, hence the flag.
   */
  private async attempt(): Promise<void> {
    this.failedAttempt = false;
    try {
      await this.informer.start();
    } catch (error) {
      this.fail(error);
    }
    if (!this.failedAttempt && !this.stopped) {
      this.health.synced = true;
      this.health.lastError = undefined;
      this.backoffMs = 200;
      this.emit({ type: 'resync' });
    }
  }

  private failedAttempt = false;

  private fail(error: unknown): void {
    this.failedAttempt = true;
    this.health.lastError = error instanceof Error ? error.message : String(error);
    if (this.stopped || this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.health.restarts++;
      void this.attempt();
    }, delay);
  }
}
