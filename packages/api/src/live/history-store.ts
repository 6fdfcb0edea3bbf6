import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { toKubeError } from '@mgpu/kube-client';
import {
  decodeHistory,
  encodeHistory,
  PUBLISHED_HISTORY_MAX_BYTES,
  type PublishedHistory,
} from './history-codec.js';

/** Where the leader's pool history is kept for every replica (and the next leader) to read. */
export interface HistoryStore {
  /** The published history; undefined when none was published (or it is not one we can read). */
  load(): Promise<PublishedHistory | undefined>;
  /** Replaces the published history with this one (bounded: the oldest samples may go). */
  publish(history: PublishedHistory): Promise<void>;
}

/** The ConfigMap's data key the encoded history is kept under. */
const DATA_KEY = 'history';

/**
 * The history in a ConfigMap of the console's namespace (`<prefix>-pool-history`), read and
 * written by name only, so the console's Role needs get/create/update on it and no list/watch.
 * One writer (the leader) at a time: a 409 is a previous leader's last write, retried once.
 */
export class ConfigMapHistoryStore implements HistoryStore {
  private readonly core: CoreV1Api;
  /** The resourceVersion this store last read or wrote: a publish needs no read before it. */
  private resourceVersion: string | undefined;

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
    readonly name: string,
    private readonly maxBytes = PUBLISHED_HISTORY_MAX_BYTES,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async load(): Promise<PublishedHistory | undefined> {
    const current = await this.read();
    const text = current?.data?.[DATA_KEY];
    return text === undefined ? undefined : decodeHistory(text);
  }

  async publish(history: PublishedHistory): Promise<void> {
    const text = encodeHistory(history, this.maxBytes);
    try {
      await this.write(text);
    } catch (error) {
      if (toKubeError(error).code !== 409) throw error;
      // Someone wrote since (a leader before this one, or a create that raced): once more.
      this.resourceVersion = undefined;
      await this.write(text);
    }
  }

  private async read(): Promise<V1ConfigMap | undefined> {
    try {
      const current = await this.core.readNamespacedConfigMap({
        name: this.name,
        namespace: this.namespace,
      });
      this.resourceVersion = current.metadata?.resourceVersion;
      return current;
    } catch (error) {
      if (toKubeError(error).code !== 404) throw error;
      this.resourceVersion = undefined;
      return undefined;
    }
  }

  private async write(text: string): Promise<void> {
    if (this.resourceVersion === undefined) await this.read();
    const body: V1ConfigMap = {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { 'app.kubernetes.io/part-of': 'mgpu-console' },
        ...(this.resourceVersion !== undefined ? { resourceVersion: this.resourceVersion } : {}),
      },
      data: { [DATA_KEY]: text },
    };
    const written =
      this.resourceVersion === undefined
        ? await this.core.createNamespacedConfigMap({ namespace: this.namespace, body })
        : await this.core.replaceNamespacedConfigMap({
            name: this.name,
            namespace: this.namespace,
            body,
          });
    this.resourceVersion = written.metadata?.resourceVersion;
  }
}

/**
 * The published history as a replica that does not sample reads it: at most one read per
 * `maxAgeMs` (callers within it get the last one, callers during a read share it), and a read
 * that fails keeps the last good history, so the charts never blank on one failed call.
 */
export class PublishedHistoryReader {
  private latest: PublishedHistory | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<PublishedHistory | undefined> | undefined;

  constructor(
    private readonly store: HistoryStore,
    private readonly maxAgeMs: number,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  read(): Promise<PublishedHistory | undefined> {
    if (Date.now() - this.readAt < this.maxAgeMs) return Promise.resolve(this.latest);
    this.inFlight ??= this.store
      .load()
      .then(
        (history) => {
          this.latest = history;
          return history;
        },
        (error: unknown) => {
          this.onError(error);
          return this.latest;
        },
      )
      .finally(() => {
        this.readAt = Date.now();
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}
