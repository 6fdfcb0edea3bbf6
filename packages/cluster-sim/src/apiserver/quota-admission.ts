/**
 * The ResourceQuota admission plugin, for pods (k8s.io/apiserver
 * pkg/admission/plugin/resourcequota): a pod whose requests would take a quota of its namespace
 * past `hard` is refused with 403 Forbidden and kube-apiserver's words,
 * `exceeded quota: <name>, requested: …, used: …, limited: …`. It runs after validation, as the
 * validating plugin it is upstream, and counts with the same function as the console's
 * `quota-exceeded` rule (`podQuotaUsage` in shared), so both clusters and the form agree.
 *
 * Usage is summed from the stored pods at admission rather than read from status.used: the
 * embedded server handles one request at a time, so that is the exact figure upstream keeps
 * current by charging status.used in the same step; `QuotaStatus` writes it to status after.
 * Only `requests.<extended resource>` is counted (cpu, memory, pods and object counts are not).
 */
import {
  formatQuotaAmount,
  isExtendedResource,
  parseQuantity,
  podQuotaUsage,
  type QuotaAmounts,
  type QuotaPod,
  type QuotaPodSpec,
  quotaUsedBy,
} from '@mgpu/shared';
import type { KubeObject } from './kube-object.js';
import type { ObjectStore } from './object-store.js';
import type { Registry, WriteOptions } from './registry.js';
import { findResource, type ResourceDefinition } from './resource-table.js';
import { ApiError } from './status.js';

function quotaDefinition(): ResourceDefinition {
  const definition = findResource('', 'v1', 'resourcequotas');
  if (!definition) throw new Error('resourcequotas missing from the resource table');
  return definition;
}

function inNamespace(
  store: ObjectStore,
  definition: ResourceDefinition,
  namespace: string,
): KubeObject[] {
  const prefix = `${namespace}/`;
  const objects: KubeObject[] = [];
  for (const [key, object] of store.state(definition).objects)
    if (key.startsWith(prefix)) objects.push(object);
  return objects;
}

/** The ResourceQuotas of a namespace, by name (the order upstream's lister gives is not fixed). */
export function quotasIn(store: ObjectStore, namespace: string): KubeObject[] {
  return inNamespace(store, quotaDefinition(), namespace).sort((a, b) =>
    (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
}

/** The stored pods of a namespace. */
export function podsIn(
  store: ObjectStore,
  pods: ResourceDefinition,
  namespace: string,
): KubeObject[] {
  return inNamespace(store, pods, namespace);
}

/** A quota's hard amounts that this server counts: `requests.<extended>` only. */
export function countedHard(quota: KubeObject): QuotaAmounts {
  const hard: QuotaAmounts = {};
  const spec = quota.spec as { hard?: Record<string, string> } | undefined;
  for (const [name, value] of Object.entries(spec?.hard ?? {})) {
    const amount = parseQuantity(value);
    if (
      name.startsWith('requests.') &&
      isExtendedResource(name.slice('requests.'.length)) &&
      Number.isInteger(amount)
    )
      hard[name] = amount;
  }
  return hard;
}

/** quota.go's prettyPrint: `name=quantity` by sorted name, comma-separated. */
function prettyPrint(amounts: QuotaAmounts, names: readonly string[]): string {
  return [...names]
    .sort()
    .map((name) => `${name}=${formatQuotaAmount(amounts[name] ?? 0)}`)
    .join(',');
}

/**
 * Refuses a pod create that a quota of its namespace does not allow; returns when it fits or no
 * quota counts what it asks for. Costs nothing in a namespace without quotas.
 */
export function admitPodQuota(
  registry: Registry,
  pods: ResourceDefinition,
  namespace: string,
  body: unknown,
  options: WriteOptions,
): void {
  const quotas = quotasIn(registry.store, namespace);
  if (quotas.length === 0) return;
  // Validation and defaulting come first upstream: an invalid pod gets its 422, not a 403.
  const pod = registry.create(pods, namespace, structuredClone(body), {
    ...options,
    dryRun: true,
    warnings: [],
  });
  const usage = podQuotaUsage((pod.spec ?? {}) as QuotaPodSpec);
  const stored = podsIn(registry.store, pods, namespace);
  const now = Date.now();
  for (const quota of quotas) {
    const hard = countedHard(quota);
    const requested = Object.keys(hard).filter((name) => (usage[name] ?? 0) > 0);
    if (requested.length === 0) continue;
    const used = quotaUsedBy(stored as QuotaPod[], requested, now);
    const exceeded = requested.filter(
      (name) => (used[name] ?? 0) + (usage[name] ?? 0) > (hard[name] ?? 0),
    );
    if (exceeded.length === 0) continue;
    // kube-apiserver generates the name before admission: a generateName pod is refused by it.
    const name = pod.metadata.name ?? '';
    throw new ApiError(
      403,
      'Forbidden',
      `pods "${name}" is forbidden: exceeded quota: ${quota.metadata.name ?? ''}, requested: ${prettyPrint(usage, exceeded)}, used: ${prettyPrint(used, exceeded)}, limited: ${prettyPrint(hard, exceeded)}`,
      { name, group: '', kind: 'pods' },
    );
  }
}
