import type { CoreV1Api, KubeConfig, V1ConfigMap } from '@kubernetes/client-node';
import { makeClients, toKubeError, within } from '@mgpu/kube-client';
import {
  decodeHistory,
  encodeHistory,
  PUBLISHED_HISTORY_MAX_BYTES,
  type PublishedHistory,
} from './history-codec.js';
import { SharedRead } from './shared-read.js';

/** Where the leader's pool history is kept for every replica (and the next leader) to read. */
export interface HistoryStore {
  /** The published history; undefined when none was published (or it is not one we can read). */
  load(): Promise<PublishedHistory | undefined>;
  /**
   * Replaces the published history with this one (bounded: the oldest samples may go), if no
   * one wrote it since this store last read or wrote it; else 'conflict', and nothing written
   * (the next publish starts from what is there now).
   */
  publish(history: PublishedHistory): Promise<'published' | 'conflict'>;
}

/** The ConfigMap's data key the encoded history is kept under. */
const DATA_KEY = 'history';

/** How long one call to the API server may take before it counts as failed. */
export const HISTORY_REQUEST_TIMEOUT_MS = 10_000;

/**
 * The history in a ConfigMap of the console's namespace (`<prefix>-pool-history`), read and
 * written by name only, so the console's Role needs get/create/update on it and no list/watch.
 * Writes carry the resourceVersion last seen: a 409 means another replica wrote it since (a
 * previous leader's last write, or a leader that replaced this one), so the caller decides
 * whether to write again: only the replica that still leads may.
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
    this.core = makeClients(kubeConfig).core;
  }

  async load(): Promise<PublishedHistory | undefined> {
    const current = await this.read();
    const text = current?.data?.[DATA_KEY];
    return text === undefined ? undefined : decodeHistory(text);
  }

  async publish(history: PublishedHistory): Promise<'published' | 'conflict'> {
    const text = encodeHistory(history, this.maxBytes);
    try {
      await this.write(text);
      return 'published';
    } catch (error) {
      if (toKubeError(error).code !== 409) throw error;
      // Never overwritten blindly: the next write reads the newer version first.
      this.resourceVersion = undefined;
      return 'conflict';
    }
  }

  private async read(): Promise<V1ConfigMap | undefined> {
    try {
      const current = await within(
        this.core.readNamespacedConfigMap({ name: this.name, namespace: this.namespace }),
        HISTORY_REQUEST_TIMEOUT_MS,
      );
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
    const written = await within(
      this.resourceVersion === undefined
        ? this.core.createNamespacedConfigMap({ namespace: this.namespace, body })
        : this.core.replaceNamespacedConfigMap({
            name: this.name,
            namespace: this.namespace,
            body,
          }),
      HISTORY_REQUEST_TIMEOUT_MS,
    );
    this.resourceVersion = written.metadata?.resourceVersion;
  }
}

/**
 * The published history as a replica that does not sample reads it: at most one read per
 * `maxAgeMs` (callers within it get the last one, callers during a read share it), and a read
 * that fails keeps the last good history, so the charts never blank on one failed call.
 */
export class PublishedHistoryReader {
  private readonly shared: SharedRead<PublishedHistory | undefined>;

  constructor(
    store: HistoryStore,
    maxAgeMs: number,
    /** Each read's outcome: the error, or undefined when it was read. */
    onRead: (error: unknown) => void = () => {},
  ) {
    this.shared = new SharedRead({
      read: () =>
        store.load().then(
          (history) => {
            onRead(undefined);
            return history;
          },
          (error: unknown) => {
            onRead(error);
            return this.shared.last();
          },
        ),
      maxAgeMs,
      // A follower's history is at most `maxAgeMs` behind the leader's: callers wait past it,
      // counted from the end of a read, so a slow or failed one answers for `maxAgeMs` too.
      staleFactor: 1,
      agedFromEnd: true,
    });
  }

  read(): Promise<PublishedHistory | undefined> {
    return this.shared.get();
  }
}
