/**
 * Per-kind defaulting and validation, in the manner of the kube-apiserver's registry
 * strategies: what a real server fills in on create and which requests it rejects with 422.
 */
import { isDns1035Label, isDns1123Label, isDns1123Subdomain } from '@mgpu/shared';
import {
  arrayAt,
  isRecord,
  type JsonRecord,
  jsonEqual,
  type KubeObject,
  numberAt,
  recordAt,
  stringAt,
} from './kube-object.js';
import {
  isLabelValue,
  isQualifiedName,
  matchesLabels,
  selectorFromLabelSelectorObject,
} from './selectors.js';
import type { StatusCause } from './status.js';

const DNS1123_LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_LABEL_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

export function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

export function invalidValue(field: string, value: unknown, detail: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
    field,
  };
}

function notSupported(field: string, value: unknown, supported: string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
    field,
  };
}

export function immutable(field: string, value: unknown): StatusCause {
  return invalidValue(field, value, 'field is immutable');
}

/** `dns-1035`: a Service's name (kube-apiserver's ValidateServiceName), a letter first. */
export type NameRule = 'label' | 'subdomain' | 'dns-1035';

const NAME_RULES: Record<NameRule, { valid: (name: string) => boolean; message: string }> = {
  label: { valid: isDns1123Label, message: DNS1123_LABEL_MESSAGE },
  subdomain: { valid: isDns1123Subdomain, message: DNS1123_SUBDOMAIN_MESSAGE },
  'dns-1035': { valid: isDns1035Label, message: DNS1035_LABEL_MESSAGE },
};

export function validateName(name: string, rule: NameRule, field = 'metadata.name'): StatusCause[] {
  const { valid, message } = NAME_RULES[rule];
  return valid(name) ? [] : [invalidValue(field, name, message)];
}

function validateStringMap(map: unknown, field: string, checkValues: boolean): StatusCause[] {
  if (map === undefined || map === null) return [];
  if (!isRecord(map))
    return [invalidValue(field, map, 'must be a map of string keys to string values')];
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(map)) {
    if (!isQualifiedName(key)) {
      causes.push(
        invalidValue(
          field,
          key,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    }
    if (typeof value !== 'string') {
      causes.push(invalidValue(`${field}.${key}`, value, 'must be a string'));
    } else if (checkValues && !isLabelValue(value)) {
      causes.push(
        invalidValue(
          field,
          value,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ),
      );
    }
  }
  return causes;
}

export function validateObjectMeta(object: KubeObject, nameRule: NameRule): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = object.metadata.name;
  if (!name)
    causes.push({
      ...required('metadata.name'),
      message: 'Required value: name or generateName is required',
    });
  else causes.push(...validateName(name, nameRule));
  causes.push(...validateStringMap(object.metadata.labels, 'metadata.labels', true));
  causes.push(...validateStringMap(object.metadata.annotations, 'metadata.annotations', false));
  return causes;
}

function imagePullPolicyFor(image: string): string {
  const lastPart = image.split('/').pop() ?? image;
  const tagged = lastPart.includes(':') || image.includes('@');
  return !tagged || image.endsWith(':latest') ? 'Always' : 'IfNotPresent';
}

/** The defaults SetDefaults_PodSpec / SetDefaults_Container apply to a pod. */
export function defaultPodSpec(spec: JsonRecord): void {
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const listName of ['initContainers', 'containers']) {
    for (const container of arrayAt(spec, listName)) {
      if (!isRecord(container)) continue;
      if (typeof container.image === 'string' && container.image !== '') {
        container.imagePullPolicy ??= imagePullPolicyFor(container.image);
      }
      container.terminationMessagePath ??= '/dev/termination-log';
      container.terminationMessagePolicy ??= 'File';
      container.resources ??= {};
      for (const port of arrayAt(container, 'ports')) if (isRecord(port)) port.protocol ??= 'TCP';
    }
  }
}

/** Guaranteed when every container has equal cpu/memory requests and limits, as kubelet computes. */
export function qosClassOf(spec: unknown): string {
  const containers = arrayAt(spec, 'containers');
  let anySet = false;
  let guaranteed = containers.length > 0;
  for (const container of containers) {
    const requests = recordAt(container, 'resources', 'requests') ?? {};
    const limits = recordAt(container, 'resources', 'limits') ?? {};
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) anySet = true;
    for (const resource of ['cpu', 'memory']) {
      const limit = limits[resource];
      const request = requests[resource] ?? limit;
      if (limit === undefined || request !== limit) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

export function validatePodSpec(given: unknown, path: string): StatusCause[] {
  // A missing spec decodes to an empty one on a real server, so the complaint is the containers.
  const spec: JsonRecord = isRecord(given) ? given : {};
  const causes: StatusCause[] = [];
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push(required(`${path}.containers`));
  }
  const seen = new Set<string>();
  for (const listName of ['initContainers', 'containers']) {
    arrayAt(spec, listName).forEach((container, index) => {
      const at = `${path}.${listName}[${index}]`;
      if (!isRecord(container)) {
        causes.push(invalidValue(at, container, 'must be an object'));
        return;
      }
      const name = container.name;
      if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`));
      else {
        causes.push(...validateName(name, 'label', `${at}.name`));
        if (seen.has(name)) {
          causes.push({
            reason: 'FieldValueDuplicate',
            message: `Duplicate value: "${name}"`,
            field: `${at}.name`,
          });
        }
        seen.add(name);
      }
      const image = container.image;
      if (typeof image !== 'string' || image.trim() === '') causes.push(required(`${at}.image`));
      arrayAt(container, 'ports').forEach((port, portIndex) => {
        const containerPort = isRecord(port) ? port.containerPort : undefined;
        if (
          typeof containerPort !== 'number' ||
          !Number.isInteger(containerPort) ||
          containerPort < 1 ||
          containerPort > 65535
        ) {
          causes.push(
            invalidValue(
              `${at}.ports[${portIndex}].containerPort`,
              containerPort ?? 0,
              'must be between 1 and 65535, inclusive',
            ),
          );
        }
      });
    });
  }
  const restartPolicy = spec.restartPolicy;
  if (
    restartPolicy !== undefined &&
    (typeof restartPolicy !== 'string' || !RESTART_POLICIES.includes(restartPolicy))
  ) {
    causes.push(notSupported(`${path}.restartPolicy`, restartPolicy, RESTART_POLICIES));
  }
  const nodeName = spec.nodeName;
  if (
    nodeName !== undefined &&
    nodeName !== '' &&
    (typeof nodeName !== 'string' || !isDns1123Subdomain(nodeName))
  ) {
    causes.push(invalidValue(`${path}.nodeName`, nodeName, DNS1123_SUBDOMAIN_MESSAGE));
  }
  return causes;
}

/** Pod spec with the fields a pod update may change blanked out (image, deadlines, tolerations). */
function mutablePartsRemoved(spec: unknown): unknown {
  if (!isRecord(spec)) return spec;
  const copy: JsonRecord = { ...spec };
  delete copy.activeDeadlineSeconds;
  delete copy.tolerations;
  delete copy.terminationGracePeriodSeconds;
  for (const listName of ['initContainers', 'containers']) {
    const list = copy[listName];
    if (Array.isArray(list)) {
      copy[listName] = list.map((container) =>
        isRecord(container) ? { ...container, image: '' } : container,
      );
    }
  }
  return copy;
}

export function validatePod(pod: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes = validatePodSpec(pod.spec, 'spec');
  if (old && !jsonEqual(mutablePartsRemoved(pod.spec), mutablePartsRemoved(old.spec))) {
    causes.push({
      reason: 'FieldValueForbidden',
      message:
        'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
      field: 'spec',
    });
  }
  // The QoS class is the API server's, set at create from the requests; kube-apiserver refuses
  // a status write that changes it (a node agent reporting BestEffort for a Burstable pod), and
  // takes one that leaves it out.
  const qosClass = recordAt(pod, 'status')?.qosClass;
  const qosClassBefore = old && recordAt(old, 'status')?.qosClass;
  if (qosClass !== undefined && qosClassBefore !== undefined && qosClass !== qosClassBefore)
    causes.push(immutable('status.qosClass', qosClass));
  return causes;
}

/** Deployments and ReplicaSets share these rules: replicas, selector ↔ template labels, template. */
function validateReplicatedWorkload(
  object: KubeObject,
  old: KubeObject | undefined,
  isDeployment: boolean,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = recordAt(object, 'spec');
  if (!spec) return [required('spec')];
  const replicas = spec.replicas;
  if (
    replicas !== undefined &&
    (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
  ) {
    causes.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
  }
  const selector = selectorFromLabelSelectorObject(spec.selector);
  if (selector === undefined) causes.push(required('spec.selector'));
  else if (selector.length === 0)
    causes.push(
      invalidValue('spec.selector', spec.selector, 'empty selector is invalid for deployment'),
    );
  const templateLabels = recordAt(spec, 'template', 'metadata', 'labels') as
    | Record<string, string>
    | undefined;
  if (selector !== undefined && selector.length > 0 && !matchesLabels(selector, templateLabels)) {
    causes.push(
      invalidValue(
        'spec.template.metadata.labels',
        templateLabels ?? {},
        '`selector` does not match template `labels`',
      ),
    );
  }
  causes.push(...validateStringMap(templateLabels, 'spec.template.metadata.labels', true));
  const templateSpec = recordAt(spec, 'template', 'spec');
  if (!templateSpec) causes.push(required('spec.template.spec.containers'));
  else {
    causes.push(...validatePodSpec(templateSpec, 'spec.template.spec'));
    const restartPolicy = templateSpec.restartPolicy;
    if (restartPolicy !== undefined && restartPolicy !== 'Always') {
      causes.push(notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
    }
  }
  if (isDeployment) {
    const strategyType = stringAt(spec, 'strategy', 'type');
    if (
      strategyType !== undefined &&
      strategyType !== 'RollingUpdate' &&
      strategyType !== 'Recreate'
    ) {
      causes.push(notSupported('spec.strategy.type', strategyType, ['Recreate', 'RollingUpdate']));
    }
    if (strategyType === 'Recreate' && recordAt(spec, 'strategy', 'rollingUpdate')) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: "Forbidden: may not be specified when strategy `type` is 'Recreate'",
        field: 'spec.strategy.rollingUpdate',
      });
    }
  }
  if (old && !jsonEqual(spec.selector, recordAt(old, 'spec')?.selector)) {
    causes.push(immutable('spec.selector', spec.selector));
  }
  return causes;
}

export function validateDeployment(object: KubeObject, old: KubeObject | undefined): StatusCause[] {
  return validateReplicatedWorkload(object, old, true);
}

export function validateReplicaSet(object: KubeObject, old: KubeObject | undefined): StatusCause[] {
  return validateReplicatedWorkload(object, old, false);
}

export function defaultDeployment(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (!spec) return;
  spec.replicas ??= 1;
  const strategy = isRecord(spec.strategy) ? spec.strategy : {};
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    rollingUpdate.maxUnavailable ??= '25%';
    rollingUpdate.maxSurge ??= '25%';
    strategy.rollingUpdate = rollingUpdate;
  }
  spec.strategy = strategy;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}

export function defaultReplicaSet(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (spec) spec.replicas ??= 1;
}

export function defaultPod(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (spec) defaultPodSpec(spec);
}

export function defaultNamespace(object: KubeObject): void {
  const name = object.metadata.name;
  if (name)
    object.metadata.labels = { ...object.metadata.labels, 'kubernetes.io/metadata.name': name };
  const spec = isRecord(object.spec) ? object.spec : {};
  spec.finalizers ??= ['kubernetes'];
  object.spec = spec;
}

/**
 * The pod strategy's CheckGracefulDelete: unscheduled and finished pods go at once, as do pods
 * whose node is gone (what the pod garbage collector does); others wait for their kubelet.
 */
export function podGracePeriod(
  pod: KubeObject,
  requested: number | undefined,
  nodeExists: (name: string) => boolean,
): number {
  const nodeName = stringAt(pod, 'spec', 'nodeName');
  const phase = stringAt(pod, 'status', 'phase');
  if (!nodeName || phase === 'Succeeded' || phase === 'Failed' || !nodeExists(nodeName)) return 0;
  const grace = requested ?? numberAt(pod, 'spec', 'terminationGracePeriodSeconds') ?? 30;
  return Math.max(0, grace);
}

/**
 * StatefulSets: the Deployment rules without a strategy, plus a `serviceName` that cannot
 * change (the pods' DNS names hang off it).
 */
export function validateStatefulSet(
  object: KubeObject,
  old: KubeObject | undefined,
): StatusCause[] {
  const causes = validateReplicatedWorkload(object, old, false);
  const serviceName = stringAt(object, 'spec', 'serviceName');
  if (old && serviceName !== stringAt(old, 'spec', 'serviceName')) {
    causes.push(immutable('spec.serviceName', serviceName));
  }
  return causes;
}

export function defaultStatefulSet(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (!spec) return;
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= 'OrderedReady';
  spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
  spec.revisionHistoryLimit ??= 10;
}

const JOB_UID_LABEL = 'batch.kubernetes.io/controller-uid';
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/**
 * Jobs, as the Job registry strategy fills them in: without `manualSelector` the server owns
 * the selector (the Job's uid) and labels the template with it and the Job's name.
 */
export function defaultJob(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (!spec) return;
  if (spec.parallelism === undefined && spec.completions === undefined) {
    spec.parallelism = 1;
    spec.completions = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  const uid = object.metadata.uid;
  if (spec.manualSelector !== true && uid && spec.selector === undefined) {
    spec.selector = { matchLabels: { [JOB_UID_LABEL]: uid } };
  }
  const template = isRecord(spec.template) ? spec.template : undefined;
  if (template && spec.manualSelector !== true && uid) {
    const metadata = isRecord(template.metadata) ? template.metadata : {};
    const labels = isRecord(metadata.labels) ? metadata.labels : {};
    labels[JOB_UID_LABEL] ??= uid;
    labels[JOB_NAME_LABEL] ??= object.metadata.name ?? '';
    labels['controller-uid'] ??= uid;
    labels['job-name'] ??= object.metadata.name ?? '';
    metadata.labels = labels;
    template.metadata = metadata;
  }
}

/** Jobs: a restart policy of Never or OnFailure; the template, selector and completions are fixed. */
export function validateJob(object: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = recordAt(object, 'spec');
  if (!spec) return [required('spec')];
  for (const field of ['parallelism', 'completions', 'backoffLimit'] as const) {
    const value = spec[field];
    if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 0))
      causes.push(invalidValue(`spec.${field}`, value, 'must be greater than or equal to 0'));
  }
  const templateSpec = recordAt(spec, 'template', 'spec');
  if (!templateSpec) causes.push(required('spec.template.spec.containers'));
  else {
    causes.push(...validatePodSpec(templateSpec, 'spec.template.spec'));
    const restartPolicy = templateSpec.restartPolicy;
    if (restartPolicy !== 'Never' && restartPolicy !== 'OnFailure')
      causes.push(
        notSupported('spec.template.spec.restartPolicy', restartPolicy, ['OnFailure', 'Never']),
      );
  }
  if (old) {
    const before = recordAt(old, 'spec') ?? {};
    for (const field of ['template', 'selector', 'completions'] as const) {
      if (!jsonEqual(spec[field], before[field]))
        causes.push(immutable(`spec.${field}`, spec[field]));
    }
  }
  return causes;
}

export function defaultService(object: KubeObject): void {
  const spec = recordAt(object, 'spec');
  if (!spec) return;
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (spec.clusterIP === 'None') spec.clusterIPs ??= ['None'];
}
