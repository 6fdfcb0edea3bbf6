/**
 * The resource table: every kind the API server serves is one entry here. Discovery, the
 * OpenAPI documents, routing, defaulting, validation, selectors and printing are all derived
 * from it, so adding a resource is adding an entry.
 */
import { MGPU_NODE_RESOURCE } from '@mgpu/shared';
import {
  decodeConfigMap,
  decodeLease,
  decodeSecret,
  defaultSecret,
  validateConfigMap,
  validateLease,
  validateSecret,
} from './config-object-rules.js';
import type { JsonRecord, KubeObject } from './kube-object.js';
import {
  defaultDeployment,
  defaultJob,
  defaultNamespace,
  defaultPod,
  defaultReplicaSet,
  defaultService,
  defaultStatefulSet,
  type NameRule,
  podGracePeriod,
  qosClassOf,
  validateDeployment,
  validateJob,
  validatePod,
  validateReplicaSet,
  validateStatefulSet,
} from './object-rules.js';
import {
  configMapColumns,
  controllerRevisionColumns,
  deploymentColumns,
  eventColumns,
  jobColumns,
  leaseColumns,
  mgpuNodeColumns,
  namespaceColumns,
  nodeColumns,
  podColumns,
  replicaSetColumns,
  resourceQuotaColumns,
  secretColumns,
  serviceColumns,
  statefulSetColumns,
  type TableColumn,
} from './printers.js';
import type { StatusCause } from './status.js';

export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  nameRule: NameRule;
  /** Has a `status` subresource: the main resource ignores status, `/status` changes only it. */
  statusSubresource: boolean;
  /** Has an autoscaling/v1 `scale` subresource over spec.replicas. */
  scaleSubresource: boolean;
  /** Has the `binding` subresource (pods). */
  bindingSubresource: boolean;
  /** metadata.generation is bumped whenever spec changes. */
  tracksGeneration: boolean;
  /** What happens to status sent on create: kept (nodes), or replaced by initialStatus. */
  statusOnCreate: 'keep' | 'replace';
  initialStatus?(object: KubeObject): JsonRecord | undefined;
  /** Field labels usable in fieldSelector besides metadata.name (and metadata.namespace). */
  fieldLabels: readonly string[];
  /** DELETE answers with the deleted object (true) or a Success Status (false). */
  returnsDeletedObject: boolean;
  /** Custom resources reject strategic merge patch with 415, like a real server. */
  strategicMergePatch: boolean;
  /** A PUT without metadata.resourceVersion is allowed (built-ins) or a 422 (custom resources). */
  unconditionalUpdate: boolean;
  /** Seconds a DELETE waits before the object goes (0 or absent: at once). */
  gracePeriod?(
    object: KubeObject,
    requested: number | undefined,
    nodeExists: (name: string) => boolean,
  ): number;
  /** What decoding the body into the Go type refuses with a 400 (bytes that are not base64). */
  decode?(object: KubeObject): void;
  defaults?(object: KubeObject): void;
  validate?(object: KubeObject, old: KubeObject | undefined): StatusCause[];
  columns: readonly TableColumn[];
}

type ResourceEntry = Pick<
  ResourceDefinition,
  'group' | 'version' | 'kind' | 'plural' | 'namespaced' | 'columns'
> &
  Partial<ResourceDefinition>;

function resource(entry: ResourceEntry): ResourceDefinition {
  return {
    singular: entry.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    nameRule: 'subdomain',
    statusSubresource: false,
    scaleSubresource: false,
    bindingSubresource: false,
    tracksGeneration: false,
    statusOnCreate: 'replace',
    fieldLabels: [],
    returnsDeletedObject: false,
    strategicMergePatch: true,
    unconditionalUpdate: true,
    ...entry,
  };
}

export const RESOURCES: readonly ResourceDefinition[] = [
  resource({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    nameRule: 'label',
    statusSubresource: true,
    initialStatus: () => ({ phase: 'Active' }),
    fieldLabels: ['status.phase'],
    returnsDeletedObject: true,
    defaults: defaultNamespace,
    columns: namespaceColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    statusSubresource: true,
    // Nodes register themselves with their capacity, so status sent on create is kept.
    statusOnCreate: 'keep',
    fieldLabels: ['spec.unschedulable'],
    columns: nodeColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    statusSubresource: true,
    bindingSubresource: true,
    initialStatus: (pod) => ({ phase: 'Pending', qosClass: qosClassOf(pod.spec) }),
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    returnsDeletedObject: true,
    gracePeriod: podGracePeriod,
    defaults: defaultPod,
    validate: validatePod,
    columns: podColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    statusOnCreate: 'keep',
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
    returnsDeletedObject: true,
    columns: eventColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'ResourceQuota',
    plural: 'resourcequotas',
    namespaced: true,
    shortNames: ['quota'],
    statusSubresource: true,
    // Status is the quota controller's (quota-status.ts); a create starts with none, as upstream.
    initialStatus: () => ({}),
    returnsDeletedObject: true,
    columns: resourceQuotaColumns,
  }),
  resource({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    statusSubresource: true,
    scaleSubresource: true,
    tracksGeneration: true,
    initialStatus: () => ({}),
    defaults: defaultDeployment,
    validate: validateDeployment,
    columns: deploymentColumns,
  }),
  resource({
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    statusSubresource: true,
    scaleSubresource: true,
    tracksGeneration: true,
    initialStatus: () => ({ replicas: 0 }),
    fieldLabels: ['status.replicas'],
    defaults: defaultReplicaSet,
    validate: validateReplicaSet,
    columns: replicaSetColumns,
  }),
  // StatefulSets and Jobs (with a StatefulSet's headless Service): the other kinds the console
  // makes (spec §8); their controllers are in controllers/.
  resource({
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    statusSubresource: true,
    scaleSubresource: true,
    tracksGeneration: true,
    initialStatus: () => ({ replicas: 0, availableReplicas: 0 }),
    defaults: defaultStatefulSet,
    validate: validateStatefulSet,
    columns: statefulSetColumns,
  }),
  // A StatefulSet's revisions (its controller keeps them, as kube-controller-manager does): the
  // pod template as a patch in `data`, numbered by `revision`; no status, no 'all' category.
  resource({
    group: 'apps',
    version: 'v1',
    kind: 'ControllerRevision',
    plural: 'controllerrevisions',
    namespaced: true,
    columns: controllerRevisionColumns,
  }),
  resource({
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    categories: ['all'],
    statusSubresource: true,
    tracksGeneration: true,
    initialStatus: () => ({}),
    defaults: defaultJob,
    validate: validateJob,
    columns: jobColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    nameRule: 'dns-1035',
    categories: ['all'],
    statusSubresource: true,
    initialStatus: () => ({ loadBalancer: {} }),
    defaults: defaultService,
    columns: serviceColumns,
  }),
  // What the console keeps in its own namespace (issue 30): revocations, published history.
  resource({
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    fieldLabels: ['type'],
    decode: decodeSecret,
    defaults: defaultSecret,
    validate: validateSecret,
    columns: secretColumns,
  }),
  resource({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
    decode: decodeConfigMap,
    validate: validateConfigMap,
    columns: configMapColumns,
  }),
  // Leader election among the console's replicas, as kube-controller-manager's.
  resource({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
    decode: decodeLease,
    validate: validateLease,
    columns: leaseColumns,
  }),
  resource({
    group: MGPU_NODE_RESOURCE.group,
    version: MGPU_NODE_RESOURCE.version,
    kind: MGPU_NODE_RESOURCE.kind,
    plural: MGPU_NODE_RESOURCE.plural,
    namespaced: false,
    shortNames: ['mgn'],
    categories: ['mgpu'],
    statusSubresource: true,
    // A custom resource with a status subresource drops status on create.
    initialStatus: () => undefined,
    tracksGeneration: true,
    returnsDeletedObject: true,
    strategicMergePatch: false,
    unconditionalUpdate: false,
    columns: mgpuNodeColumns,
  }),
];

export function apiVersionOf(definition: ResourceDefinition): string {
  return definition.group ? `${definition.group}/${definition.version}` : definition.version;
}

export function findResource(
  group: string,
  version: string,
  plural: string,
): ResourceDefinition | undefined {
  return RESOURCES.find(
    (definition) =>
      definition.group === group && definition.version === version && definition.plural === plural,
  );
}

export function findResourceByKind(
  apiVersion: string,
  kind: string,
): ResourceDefinition | undefined {
  return RESOURCES.find(
    (definition) => apiVersionOf(definition) === apiVersion && definition.kind === kind,
  );
}

/** The groups served under /apis, in the order discovery lists them. */
export function apiGroups(): { name: string; versions: string[] }[] {
  const groups = new Map<string, Set<string>>();
  for (const definition of RESOURCES) {
    if (!definition.group) continue;
    const versions = groups.get(definition.group) ?? new Set<string>();
    versions.add(definition.version);
    groups.set(definition.group, versions);
  }
  return [...groups].map(([name, versions]) => ({ name, versions: [...versions] }));
}
