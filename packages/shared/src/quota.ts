/**
 * ResourceQuota on mGPU, counted the way kube-apiserver counts it
 * (k8s.io/kubernetes pkg/quota/v1/evaluator/core/pods.go). An extended resource such as
 * `vke.volcengine.com/mgpu-core` can only be limited as `requests.<name>`; a pod is charged the
 * sum of its containers' requests, or its largest init container's if that is more, plus the
 * pod overhead (component-helpers' PodRequests). The manifest writes a multi-card container's
 * total (per-card share × cards), so that total is what the quota counts. The embedded API
 * server's admission and the form's `quota-exceeded` rule both use these functions.
 */
import { parseQuantity } from './quantity.js';
import { VKE } from './vke.js';

/** Quota amounts by quota resource name (`requests.vke.volcengine.com/mgpu-core`, …). */
export type QuotaAmounts = Record<string, number>;

/** The quota resource name Kubernetes charges an extended resource's requests under. */
export const quotaResourceOf = (resource: string) => `requests.${resource}`;

export const QUOTA_CORE = quotaResourceOf(VKE.coreResource);
export const QUOTA_MEMORY = quotaResourceOf(VKE.memoryResource);
/** The quota resources the console shows and checks a request against. */
export const MGPU_QUOTA_RESOURCES = [QUOTA_CORE, QUOTA_MEMORY] as const;

/**
 * An extended resource: a domain-prefixed name outside `kubernetes.io` (v1helper
 * IsExtendedResourceName). Only these are charged here; their quantities are whole numbers
 * (API validation refuses anything else), so the sums are exact.
 */
export function isExtendedResource(name: string): boolean {
  return name.includes('/') && !name.includes('kubernetes.io/') && !name.startsWith('requests.');
}

interface RequestsOf {
  resources?: { requests?: Record<string, string> | undefined } | undefined;
}

/** The parts of a pod spec a quota reads. */
export interface QuotaPodSpec {
  containers?: readonly RequestsOf[] | undefined;
  initContainers?: readonly RequestsOf[] | undefined;
  overhead?: Record<string, string> | undefined;
}

function addRequests(into: QuotaAmounts, requests: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(requests ?? {})) {
    if (!isExtendedResource(name)) continue;
    const amount = parseQuantity(value);
    if (!Number.isInteger(amount)) continue;
    const key = quotaResourceOf(name);
    into[key] = (into[key] ?? 0) + amount;
  }
}

/** What one pod of this spec charges to its namespace's quotas, per `requests.<extended>`. */
export function podQuotaUsage(spec: QuotaPodSpec): QuotaAmounts {
  const usage: QuotaAmounts = {};
  for (const container of spec.containers ?? []) addRequests(usage, container.resources?.requests);
  // Init containers run one at a time before the others: the pod needs the largest of them.
  for (const container of spec.initContainers ?? []) {
    const own: QuotaAmounts = {};
    addRequests(own, container.resources?.requests);
    for (const [key, amount] of Object.entries(own)) usage[key] = Math.max(usage[key] ?? 0, amount);
  }
  addRequests(usage, spec.overhead);
  return usage;
}

/** The parts of a pod that decide whether it is still charged. */
export interface QuotaPod {
  metadata?: {
    deletionTimestamp?: Date | string | undefined;
    deletionGracePeriodSeconds?: number | undefined;
  };
  spec?: QuotaPodSpec | undefined;
  status?: { phase?: string | undefined } | undefined;
}

/**
 * Whether a pod still counts against quota (QuotaV1Pod): finished pods do not, nor a deleted
 * one once its grace period is over.
 */
export function podChargesQuota(pod: QuotaPod, now: number): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion !== undefined && grace !== undefined) {
    if (now > new Date(deletion).getTime() + grace * 1000) return false;
  }
  return true;
}

/** The summed charge of the pods that still count, limited to the given quota resources. */
export function quotaUsedBy(
  pods: Iterable<QuotaPod>,
  resources: readonly string[],
  now: number,
): QuotaAmounts {
  const used: QuotaAmounts = Object.fromEntries(resources.map((resource) => [resource, 0]));
  for (const pod of pods) {
    if (!podChargesQuota(pod, now)) continue;
    const usage = podQuotaUsage(pod.spec ?? {});
    for (const resource of resources)
      used[resource] = (used[resource] ?? 0) + (usage[resource] ?? 0);
  }
  return used;
}

/** One ResourceQuota as the rules and the console see it: what it allows and what is charged. */
export interface NamespaceQuota {
  namespace: string;
  name: string;
  /** status.hard when the quota controller has set it, else spec.hard. */
  hard: QuotaAmounts;
  used: QuotaAmounts;
}

interface ResourceQuotaLike {
  metadata?: { name?: string | undefined; namespace?: string | undefined };
  spec?: { hard?: Record<string, string> | undefined } | undefined;
  status?:
    | { hard?: Record<string, string> | undefined; used?: Record<string, string> | undefined }
    | undefined;
}

function amountsOf(list: Record<string, string> | undefined): QuotaAmounts {
  const amounts: QuotaAmounts = {};
  for (const [name, value] of Object.entries(list ?? {})) {
    const amount = parseQuantity(value);
    if (Number.isFinite(amount)) amounts[name] = amount;
  }
  return amounts;
}

/**
 * The quotas as an edit of a workload sees them: `status.used` already charges the workload's
 * own current pods, which its new pods replace, so what they are charged (`quotaUsedBy`, the
 * quota controller's own sum) is given back in their namespace. Never below zero: the
 * controller's status may not have counted a pod that was just made.
 */
export function quotasWithout(
  quotas: readonly NamespaceQuota[],
  namespace: string,
  pods: Iterable<QuotaPod>,
  now: number,
): NamespaceQuota[] {
  const own = [...pods];
  return quotas.map((quota) => {
    if (quota.namespace !== namespace || own.length === 0) return quota;
    const charged = quotaUsedBy(own, Object.keys(quota.used), now);
    const used = Object.fromEntries(
      Object.entries(quota.used).map(([resource, amount]) => [
        resource,
        Math.max(0, amount - (charged[resource] ?? 0)),
      ]),
    );
    return { ...quota, used };
  });
}

/**
 * An edit's rolling update as its namespace's quotas see it: a RollingUpdate Deployment runs up
 * to `maxSurge` pods beyond its replicas while old and new pods overlap, and every one of them
 * is charged (terminating ones too, until their grace period ends). `replaced` are what each of
 * the workload's current pods is charged — `quotasWithout` has given them back.
 */
export interface QuotaRollout {
  maxSurge: number;
  replaced: readonly QuotaAmounts[];
}

/**
 * The most a rolling update to `replicas` new pods, each charged `perPod`, charges of one
 * resource at any moment. The deployment controller scales the new ReplicaSet up before the old
 * ones down, and never above replicas + maxSurge pods: so the peak is either at the start (every
 * old pod beside the first `maxSurge` new ones) or at the end (every new pod beside the last
 * `maxSurge` old ones, the most charged of them), whichever is more.
 */
export function rolloutPeakCharge(
  perPod: number,
  replicas: number,
  resource: string,
  rollout: QuotaRollout,
  maxSurge = rollout.maxSurge,
): number {
  const old = rollout.replaced.map((charge) => charge[resource] ?? 0).sort((a, b) => b - a);
  const allOld = old.reduce((sum, charge) => sum + charge, 0);
  const lastOld = old.slice(0, maxSurge).reduce((sum, charge) => sum + charge, 0);
  return Math.max(perPod * replicas + lastOld, allOld + perPod * Math.min(maxSurge, replicas));
}

/** Reads a ResourceQuota object; the admission plugin judges by status, so status comes first. */
export function namespaceQuotaOf(object: ResourceQuotaLike): NamespaceQuota {
  const statusHard = object.status?.hard;
  return {
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    hard: amountsOf(
      statusHard && Object.keys(statusHard).length > 0 ? statusHard : object.spec?.hard,
    ),
    used: amountsOf(object.status?.used),
  };
}

/**
 * A whole-number quantity as resource.Quantity prints it (DecimalSI canonical form): the
 * largest power of 1000 that divides it becomes a suffix, so 1000 is "1k" and 1500 stays "1500".
 */
export function formatQuotaAmount(amount: number): string {
  if (!Number.isInteger(amount) || amount === 0) return String(amount);
  const suffixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let value = amount;
  let exponent = 0;
  while (exponent < suffixes.length - 1 && value % 1000 === 0) {
    value /= 1000;
    exponent += 1;
  }
  return `${value}${suffixes[exponent]}`;
}

/** A quota's mGPU resources as `cluster.quotas` and the form show them; undefined without any. */
export function mgpuQuotaUsage(quota: NamespaceQuota):
  | {
      namespace: string;
      name: string;
      resources: { resource: string; used: number; limit: number }[];
    }
  | undefined {
  const resources = MGPU_QUOTA_RESOURCES.filter(
    (resource) => quota.hard[resource] !== undefined,
  ).map((resource) => ({
    resource,
    used: quota.used[resource] ?? 0,
    limit: quota.hard[resource] ?? 0,
  }));
  return resources.length > 0
    ? { namespace: quota.namespace, name: quota.name, resources }
    : undefined;
}
