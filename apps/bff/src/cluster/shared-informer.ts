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
