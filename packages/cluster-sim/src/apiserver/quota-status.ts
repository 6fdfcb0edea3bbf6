/**
 * What kube-controller-manager's resource quota controller does, inside the server (as the
 * garbage collector and event expiry are): every ResourceQuota's status carries `hard` (its
 * spec's) and `used` (what its namespace's pods are charged, `quotaUsedBy` in shared). It
 * recomputes a namespace after any change of its pods or quotas, batched to the next turn of the
 * event loop so a watcher never sees the status change before the change that caused it; a
 * status that is already right is not written again. Namespaces without quotas cost a lookup.
 */
import { formatQuotaAmount, type QuotaPod, quotaUsedBy } from '@mgpu/shared';
import type { KubeObject } from './kube-object.js';
import type { ObjectStore, StoreWatcher } from './object-store.js';
import { countedHard, podsIn, quotasIn } from './quota-admission.js';
import { findResource, type ResourceDefinition } from './resource-table.js';

function definitionOf(plural: string): ResourceDefinition {
  const definition = findResource('', 'v1', plural);
  if (!definition) throw new Error(`${plural} missing from the resource table`);
  return definition;
}

const jsonEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class QuotaStatus {
  private readonly pods = definitionOf('pods');
  private readonly quotas = definitionOf('resourcequotas');
  private readonly dirty = new Set<string>();
  private pending: NodeJS.Immediate | undefined;
  private readonly watcher: StoreWatcher = {
    onEvent: ({ object }) => {
      const namespace = object.metadata.namespace;
      if (namespace === undefined) return;
      this.dirty.add(namespace);
      this.pending ??= setImmediate(() => this.sync());
    },
  };

  constructor(private readonly store: ObjectStore) {}

  /** Follows pods and quotas; quotas loaded from a state file are brought up to date at once. */
  start(): void {
    this.store.state(this.pods).watchers.add(this.watcher);
    this.store.state(this.quotas).watchers.add(this.watcher);
    for (const quota of this.store.state(this.quotas).objects.values())
      if (quota.metadata.namespace !== undefined) this.dirty.add(quota.metadata.namespace);
    this.sync();
  }

  stop(): void {
    this.store.state(this.pods).watchers.delete(this.watcher);
    this.store.state(this.quotas).watchers.delete(this.watcher);
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
  }

  private sync(): void {
    this.pending = undefined;
    const namespaces = [...this.dirty];
    this.dirty.clear();
    const now = Date.now();
    for (const namespace of namespaces) {
      const quotas = quotasIn(this.store, namespace);
      if (quotas.length === 0) continue;
      const pods = podsIn(this.store, this.pods, namespace) as QuotaPod[];
      for (const quota of quotas) this.write(quota, pods, now);
    }
  }

  private write(quota: KubeObject, pods: readonly QuotaPod[], now: number): void {
    const spec = quota.spec as { hard?: Record<string, string> } | undefined;
    const used = quotaUsedBy(pods, Object.keys(countedHard(quota)), now);
    const status = {
      hard: { ...spec?.hard },
      used: Object.fromEntries(
        Object.entries(used).map(([name, amount]) => [name, formatQuotaAmount(amount)]),
      ),
    };
    if (jsonEqual(quota.status, status)) return;
    // The controller writes /status: nothing but status changes (this commit is that write).
    this.store.commit(this.quotas, 'MODIFIED', { ...quota, status }, quota);
  }
}
