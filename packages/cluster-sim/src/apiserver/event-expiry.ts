/**
 * Event expiry, as kube-apiserver's `--event-ttl`: an Event lives for the TTL after its last
 * write (etcd stores it under a lease) and then goes, and watchers see it DELETED. The embedded
 * scheduler records an Event for every placement, about 50 a second under churn, so without
 * this the store, its state file and every Event list only grew.
 */
import { type ObjectStore, objectKey, type StoreWatcher } from './object-store.js';
import type { ResourceDefinition } from './resource-table.js';

/** kube-apiserver's default `--event-ttl`. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

interface Lease {
  namespace: string | undefined;
  name: string;
  expiresAt: number;
}

export class EventExpiry {
  /**
   * By key, in order of last write. One TTL for all, so that is also the order of expiry: a
   * write moves its key to the end and the sweep stops at the first lease still running.
   */
  private readonly leases = new Map<string, Lease>();
  private readonly watcher: StoreWatcher;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly definition: ResourceDefinition,
    private readonly ttlMs: number,
  ) {
    this.watcher = {
      onEvent: ({ type, object }) => {
        const { namespace, name = '' } = object.metadata;
        const key = objectKey(namespace, name);
        this.leases.delete(key);
        if (type !== 'DELETED')
          this.leases.set(key, { namespace, name, expiresAt: Date.now() + this.ttlMs });
        this.arm();
      },
    };
  }

  /** Leases every stored Event (one loaded from a state file gets a full TTL) and follows writes. */
  start(): void {
    const now = Date.now();
    for (const object of this.store.state(this.definition).objects.values()) {
      const { namespace, name = '' } = object.metadata;
      this.leases.set(objectKey(namespace, name), { namespace, name, expiresAt: now + this.ttlMs });
    }
    this.store.state(this.definition).watchers.add(this.watcher);
    this.arm();
  }

  stop(): void {
    this.store.state(this.definition).watchers.delete(this.watcher);
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A timer for the oldest lease, unless one is set already (it re-arms after its sweep). */
  private arm(): void {
    if (this.timer !== undefined) return;
    const oldest = this.leases.values().next().value;
    if (oldest === undefined) return;
    this.timer = setTimeout(() => this.sweep(), Math.max(0, oldest.expiresAt - Date.now()));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const lease of this.leases.values()) {
      if (lease.expiresAt > now) break;
      const object = this.store.get(this.definition, lease.namespace, lease.name);
      // The DELETED event reaches the watcher above, which drops the lease.
      if (object) this.store.commit(this.definition, 'DELETED', object, object);
      else this.leases.delete(objectKey(lease.namespace, lease.name));
    }
    this.arm();
  }
}
