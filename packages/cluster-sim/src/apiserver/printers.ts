/**
 * Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which is
 * what `kubectl get` asks for: the columns a real kube-apiserver prints for each kind.
 */
import { arrayAt, isRecord, type KubeObject, numberAt, recordAt, stringAt } from './kube-object.js';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  format?: 'name';
  description: string;
  priority: 0 | 1;
  cell(object: KubeObject, now: number): string | number;
}

/** duration.HumanDuration of k8s.io/apimachinery: "45s", "3m20s", "5h", "12d". */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0
      ? `${Math.floor(hours / 24)}d`
      : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(timestamp: string | undefined, now: number): string {
  if (!timestamp) return '<unknown>';
  return humanDuration(now - Date.parse(timestamp));
}

export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
  cell: (object) => object.metadata.name ?? '',
};

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (object, now) => age(object.metadata.creationTimestamp, now),
};

function column(
  name: string,
  cell: TableColumn['cell'],
  options: { type?: TableColumn['type']; priority?: 0 | 1; description?: string } = {},
): TableColumn {
  return {
    name,
    type: options.type ?? 'string',
    description: options.description ?? name,
    priority: options.priority ?? 0,
    cell,
  };
}

function podStatusReason(pod: KubeObject): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  let reason = stringAt(pod, 'status', 'reason') ?? stringAt(pod, 'status', 'phase') ?? 'Pending';
  for (const status of arrayAt(pod, 'status', 'containerStatuses')) {
    const waiting = stringAt(status, 'state', 'waiting', 'reason');
    const terminated = stringAt(status, 'state', 'terminated', 'reason');
    if (waiting) reason = waiting;
    else if (terminated) reason = terminated;
  }
  return reason;
}

export const podColumns: TableColumn[] = [
  nameColumn,
  column('Ready', (pod) => {
    const total = arrayAt(pod, 'spec', 'containers').length;
    const ready = arrayAt(pod, 'status', 'containerStatuses').filter(
      (status) => isRecord(status) && status.ready === true,
    ).length;
    return `${ready}/${total}`;
  }),
  column('Status', podStatusReason),
  column(
    'Restarts',
    (pod) =>
      arrayAt(pod, 'status', 'containerStatuses').reduce<number>(
        (sum, status) => sum + (numberAt(status, 'restartCount') ?? 0),
        0,
      ),
    { type: 'integer' },
  ),
  ageColumn,
  column('IP', (pod) => stringAt(pod, 'status', 'podIP') ?? '<none>', { priority: 1 }),
  column('Node', (pod) => stringAt(pod, 'spec', 'nodeName') ?? '<none>', { priority: 1 }),
  column('Nominated Node', (pod) => stringAt(pod, 'status', 'nominatedNodeName') ?? '<none>', {
    priority: 1,
  }),
  column('Readiness Gates', () => '<none>', { priority: 1 }),
];

function nodeStatus(node: KubeObject): string {
  const ready = arrayAt(node, 'status', 'conditions').find(
    (condition) => isRecord(condition) && condition.type === 'Ready',
  );
  let status =
    isRecord(ready) && ready.status === 'True' ? 'Ready' : isRecord(ready) ? 'NotReady' : 'Unknown';
  if (recordAt(node, 'spec')?.unschedulable === true) status += ',SchedulingDisabled';
  return status;
}

export const nodeColumns: TableColumn[] = [
  nameColumn,
  column('Status', nodeStatus),
  column('Roles', (node) => {
    const roles = Object.keys(node.metadata.labels ?? {})
      .filter((label) => label.startsWith('node-role.kubernetes.io/'))
      .map((label) => label.slice('node-role.kubernetes.io/'.length));
    return roles.length > 0 ? roles.join(',') : '<none>';
  }),
  ageColumn,
  column('Version', (node) => stringAt(node, 'status', 'nodeInfo', 'kubeletVersion') ?? ''),
  column(
    'Internal-IP',
    (node) => {
      const address = arrayAt(node, 'status', 'addresses').find(
        (entry) => isRecord(entry) && entry.type === 'InternalIP',
      );
      return isRecord(address) && typeof address.address === 'string' ? address.address : '<none>';
    },
    { priority: 1 },
  ),
];

export const namespaceColumns: TableColumn[] = [
  nameColumn,
  column('Status', (namespace) => stringAt(namespace, 'status', 'phase') ?? 'Active'),
  ageColumn,
];

function replicasOf(object: KubeObject, field: string): number {
  return numberAt(object, 'status', field) ?? 0;
}

function containersOf(object: KubeObject, field: 'name' | 'image'): string {
  return arrayAt(object, 'spec', 'template', 'spec', 'containers')
    .map((container) => (isRecord(container) ? String(container[field] ?? '') : ''))
    .join(',');
}

function selectorOf(object: KubeObject): string {
  const matchLabels = recordAt(object, 'spec', 'selector', 'matchLabels') ?? {};
  const parts = Object.entries(matchLabels).map(([key, value]) => `${key}=${String(value)}`);
  return parts.length > 0 ? parts.join(',') : '<none>';
}

export const deploymentColumns: TableColumn[] = [
  nameColumn,
  column(
    'Ready',
    (deployment) =>
      `${replicasOf(deployment, 'readyReplicas')}/${numberAt(deployment, 'spec', 'replicas') ?? 0}`,
  ),
  column('Up-to-date', (deployment) => replicasOf(deployment, 'updatedReplicas'), {
    type: 'integer',
  }),
  column('Available', (deployment) => replicasOf(deployment, 'availableReplicas'), {
    type: 'integer',
  }),
  ageColumn,
  column('Containers', (deployment) => containersOf(deployment, 'name'), { priority: 1 }),
  column('Images', (deployment) => containersOf(deployment, 'image'), { priority: 1 }),
  column('Selector', selectorOf, { priority: 1 }),
];

export const replicaSetColumns: TableColumn[] = [
  nameColumn,
  column('Desired', (replicaSet) => numberAt(replicaSet, 'spec', 'replicas') ?? 0, {
    type: 'integer',
  }),
  column('Current', (replicaSet) => replicasOf(replicaSet, 'replicas'), { type: 'integer' }),
  column('Ready', (replicaSet) => replicasOf(replicaSet, 'readyReplicas'), { type: 'integer' }),
  ageColumn,
  column('Containers', (replicaSet) => containersOf(replicaSet, 'name'), { priority: 1 }),
  column('Images', (replicaSet) => containersOf(replicaSet, 'image'), { priority: 1 }),
  column('Selector', selectorOf, { priority: 1 }),
];

export const eventColumns: TableColumn[] = [
  column('Last Seen', (event, now) =>
    age(
      stringAt(event, 'lastTimestamp') ??
        stringAt(event, 'eventTime') ??
        event.metadata.creationTimestamp,
      now,
    ),
  ),
  column('Type', (event) => stringAt(event, 'type') ?? ''),
  column('Reason', (event) => stringAt(event, 'reason') ?? ''),
  column('Object', (event) => {
    const kind = stringAt(event, 'involvedObject', 'kind') ?? '';
    const name = stringAt(event, 'involvedObject', 'name') ?? '';
    return `${kind.toLowerCase()}/${name}`;
  }),
  column('Message', (event) => stringAt(event, 'message') ?? ''),
];

/** Node-agent reports are free-form, so only the generic columns a CRD without printer columns gets. */
export const mgpuNodeColumns: TableColumn[] = [nameColumn, ageColumn];

export const statefulSetColumns: TableColumn[] = [
  nameColumn,
  column(
    'Ready',
    (set) => `${replicasOf(set, 'readyReplicas')}/${numberAt(set, 'spec', 'replicas') ?? 0}`,
  ),
  ageColumn,
  column('Containers', (set) => containersOf(set, 'name'), { priority: 1 }),
  column('Images', (set) => containersOf(set, 'image'), { priority: 1 }),
];

/** As kubectl prints them: the controller as `<kind>.<group>/<name>`, then the revision number. */
export const controllerRevisionColumns: TableColumn[] = [
  nameColumn,
  column('Controller', (revision) => {
    const owner = revision.metadata.ownerReferences?.find((reference) => reference.controller);
    if (!owner) return '<none>';
    const group = owner.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
    return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
  }),
  column('Revision', (revision) => numberAt(revision, 'revision') ?? 0, { type: 'integer' }),
  ageColumn,
];

export const jobColumns: TableColumn[] = [
  nameColumn,
  column('Status', (job) =>
    arrayAt(job, 'status', 'conditions').some(
      (condition) =>
        isRecord(condition) && condition.type === 'Complete' && condition.status === 'True',
    )
      ? 'Complete'
      : 'Running',
  ),
  column(
    'Completions',
    (job) => `${replicasOf(job, 'succeeded')}/${numberAt(job, 'spec', 'completions') ?? 1}`,
  ),
  ageColumn,
  column('Containers', (job) => containersOf(job, 'name'), { priority: 1 }),
  column('Images', (job) => containersOf(job, 'image'), { priority: 1 }),
  column('Selector', selectorOf, { priority: 1 }),
];

export const serviceColumns: TableColumn[] = [
  nameColumn,
  column('Type', (service) => stringAt(service, 'spec', 'type') ?? 'ClusterIP'),
  column('Cluster-IP', (service) => stringAt(service, 'spec', 'clusterIP') ?? '<none>'),
  ageColumn,
];

/** printResourceQuota: `<resource>: <used>/<hard>` by sorted name, limits.* in a column of their own. */
function quotaCell(quota: KubeObject, limits: boolean): string {
  const hard = recordAt(quota, 'status', 'hard') ?? {};
  const used = recordAt(quota, 'status', 'used') ?? {};
  return Object.keys(hard)
    .sort()
    .filter((name) => name.startsWith('limits.') === limits)
    .map((name) => `${name}: ${String(used[name] ?? '0')}/${String(hard[name])}`)
    .join(', ');
}

export const resourceQuotaColumns: TableColumn[] = [
  nameColumn,
  ageColumn,
  column('Request', (quota) => quotaCell(quota, false)),
  column('Limit', (quota) => quotaCell(quota, true)),
];

function entryCount(object: KubeObject, ...fields: string[]): number {
  return fields.reduce((sum, field) => sum + Object.keys(recordAt(object, field) ?? {}).length, 0);
}

export const secretColumns: TableColumn[] = [
  nameColumn,
  column('Type', (secret) => stringAt(secret, 'type') ?? ''),
  column('Data', (secret) => entryCount(secret, 'data'), { type: 'integer' }),
  ageColumn,
];

export const configMapColumns: TableColumn[] = [
  nameColumn,
  column('Data', (configMap) => entryCount(configMap, 'data', 'binaryData'), { type: 'integer' }),
  ageColumn,
];

export const leaseColumns: TableColumn[] = [
  nameColumn,
  column('Holder', (lease) => stringAt(lease, 'spec', 'holderIdentity') ?? ''),
  ageColumn,
];
