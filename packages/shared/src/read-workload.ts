import { Big, formatDecimal } from './decimal.js';
import type { ContainerRequest, GpuRequest, WorkloadRequest } from './request.js';
import { multiCardAnnotation, VKE } from './vke.js';

/** The kinds whose pods the console can read back (spec §7 `mgpu lint`). */
export const WORKLOAD_KINDS = [
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** Where the pod template sits in each kind, as a path prefix. */
const POD_TEMPLATE_PATH: Record<WorkloadKind, string[]> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  ReplicaSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
  Pod: [],
};

/**
 * Why a field of the object is not in the request of spec §7. The first group `workload.update`
 * keeps exactly as it is (it writes only the form's fields); the second it would rewrite or drop,
 * so an object with any of them is not edited through the form.
 */
export const KEPT_UNEXPRESSED = ['pod-field', 'container-field', 'other-resource'] as const;
export const LOST_UNEXPRESSED = [
  /** A GPU resource whose request differs from its limit: the form writes one value for both. */
  'gpu-request-not-limit',
  /** A container asking for mGPU and whole nvidia cards at once: the form has one GPU type. */
  'mixed-gpu-resources',
  /** A multi-card annotation the form would not write again (no mGPU resources, or no such container). */
  'multi-card-annotation',
  /** A GPU-model requirement other than one `In` value (several models, NotIn, Exists, …). */
  'model-requirement',
  /** GPU resources on an init container: the form neither shows nor checks them. */
  'init-container-gpu',
] as const;
export type UnexpressedReason =
  | (typeof KEPT_UNEXPRESSED)[number]
  | (typeof LOST_UNEXPRESSED)[number];

/** A field of the object the request cannot express, at its path in the object. */
export interface UnexpressedField {
  path: string;
  reason: UnexpressedReason;
  /** Whether an update keeps it as it is; false: the form cannot round-trip the object. */
  kept: boolean;
}

/** The pod spec fields the form writes (containers, and the model pin in these two). */
const FORM_POD_FIELDS = new Set(['containers', 'nodeSelector', 'affinity']);
/** The container fields the form writes; `resources` only for the GPU resources. */
const FORM_CONTAINER_FIELDS = new Set(['name', 'image', 'resources']);
const GPU_RESOURCE_NAMES: readonly string[] = [
  VKE.coreResource,
  VKE.memoryResource,
  VKE.nvidiaResource,
];

/**
 * Fields kube-apiserver fills in on every pod template (SetDefaults_PodSpec, SetDefaults_Container)
 * at the value it fills in: nobody wrote them, an update keeps them, so they are not listed.
 * A Job's `OnFailure` is what the console's own manifest writes (manifest.ts).
 */
const isPodDefault = (key: string, value: unknown, kind: WorkloadKind) =>
  (key === 'dnsPolicy' && value === 'ClusterFirst') ||
  (key === 'restartPolicy' && value === (kind === 'Job' ? 'OnFailure' : 'Always')) ||
  (key === 'schedulerName' && value === 'default-scheduler') ||
  (key === 'terminationGracePeriodSeconds' && value === 30) ||
  (key === 'securityContext' && isObject(value) && Object.keys(value).length === 0);

const defaultPullPolicy = (image: unknown) => {
  const text = typeof image === 'string' ? image : '';
  const tag = /:([^/:@]+)$/.exec(text.split('@')[0] ?? '')?.[1];
  return text.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always';
};

const isContainerDefault = (key: string, value: unknown, container: Json) =>
  (key === 'terminationMessagePath' && value === '/dev/termination-log') ||
  (key === 'terminationMessagePolicy' && value === 'File') ||
  (key === 'imagePullPolicy' && value === defaultPullPolicy(container.image));

/** An existing object read back into the console's request shape. */
export interface ReadWorkload {
  kind: WorkloadKind;
  name: string;
  namespace: string;
  request: WorkloadRequest;
  /** The pod's compute policy annotation, or undefined when absent. */
  computePolicy?: string;
  /** Any container asks for mGPU compute or memory, or a multi-card annotation is present. */
  usesMgpu: boolean;
  /** Whether the object names itself (`metadata.name`), rather than only a `generateName`. */
  hasName: boolean;
  /** Whether `spec.replicas` is written in the object. */
  hasReplicas: boolean;
  /** GPU resources whose request differs from its limit, with the request's path in the object. */
  unequalLimits: { index: number; resource: string; path: string }[];
  /**
   * Every field of the pod template the request cannot express, in object order: what an
   * update keeps as it is, and what it could not write back (`kept: false`).
   */
  unexpressed: UnexpressedField[];
  /**
   * The path in the object of a field of the request (`containers.0.gpu.compute` →
   * `spec.template.spec.containers[0].resources.limits["vke.volcengine.com/mgpu-core"]`);
   * a path that is not a request field is returned as it is.
   */
  objectPath(requestPath: string): string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const objectAt = (value: unknown, key: string): Json => {
  const child = isObject(value) ? value[key] : undefined;
  return isObject(child) ? child : {};
};

const stringMap = (value: unknown): Record<string, string> => {
  const map: Record<string, string> = {};
  if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' || typeof item === 'number') map[key] = String(item);
    }
  }
  return map;
};

const isWorkloadKind = (kind: unknown): kind is WorkloadKind =>
  typeof kind === 'string' && (WORKLOAD_KINDS as readonly string[]).includes(kind);

const keyPath = (key: string) => `["${key}"]`;

/** `mgpu-core` is a percent of one card: 120 → "1.2". Text that is not a number stays as it is. */
function computeFromCore(core: string | undefined): string | undefined {
  if (core === undefined) return undefined;
  return /^\s*\d+(\.\d+)?\s*$/.test(core) ? formatDecimal(new Big(core.trim()).div(100)) : core;
}

/** `mgpu-memory` is MiB over all cards: 8192 → "8" GiB (always a finite decimal). */
function memoryFromMiB(mib: string | undefined): string | undefined {
  if (mib === undefined) return undefined;
  return /^\s*\d+(\.\d+)?\s*$/.test(mib) ? formatDecimal(new Big(mib.trim()).div(1024)) : mib;
}

/** The GPU model a pod is pinned to, through required node affinity or a node selector. */
function modelOf(podSpec: Json, modelLabel: string): { model: string; path: string } | undefined {
  const required = objectAt(
    objectAt(objectAt(podSpec, 'affinity'), 'nodeAffinity'),
    'requiredDuringSchedulingIgnoredDuringExecution',
  );
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  for (const [termIndex, term] of terms.entries()) {
    const expressions =
      isObject(term) && Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
    for (const [index, expression] of expressions.entries()) {
      if (
        isObject(expression) &&
        expression.key === modelLabel &&
        expression.operator === 'In' &&
        Array.isArray(expression.values) &&
        typeof expression.values[0] === 'string'
      ) {
        return {
          model: expression.values[0],
          path: `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${termIndex}].matchExpressions[${index}].values`,
        };
      }
    }
  }
  const selector = stringMap(podSpec.nodeSelector)[modelLabel];
  return selector === undefined
    ? undefined
    : { model: selector, path: `spec.nodeSelector${keyPath(modelLabel)}` };
}

/**
 * GPU-model requirements the form cannot write back: it pins one model with `In` in every
 * required term or in the node selector, so anything else on the model label would be replaced.
 */
function unexpressibleModelPins(podSpec: Json, modelLabel: string, prefix: string): string[] {
  const required = objectAt(
    objectAt(objectAt(podSpec, 'affinity'), 'nodeAffinity'),
    'requiredDuringSchedulingIgnoredDuringExecution',
  );
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  const paths: string[] = [];
  const models = new Set<string>();
  for (const [termIndex, term] of terms.entries()) {
    const expressions =
      isObject(term) && Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
    for (const [index, expression] of expressions.entries()) {
      if (!isObject(expression) || expression.key !== modelLabel) continue;
      const path = `${prefix}spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${termIndex}].matchExpressions[${index}]`;
      const values = Array.isArray(expression.values) ? expression.values : [];
      if (expression.operator !== 'In' || values.length !== 1 || typeof values[0] !== 'string')
        paths.push(path);
      else models.add(values[0]);
    }
  }
  const selector = stringMap(podSpec.nodeSelector)[modelLabel];
  if (selector !== undefined) models.add(selector);
  // Different models in different places: the form keeps only the first.
  if (paths.length === 0 && models.size > 1) paths.push(`${prefix}spec.affinity.nodeAffinity`);
  return paths;
}

/**
 * Reads a Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob or Pod back into a
 * workload request: mGPU core and memory into compute and GiB, card counts from the seed's
 * `multiple-mgpu-<container>` annotation or the older positional `container-multiple-gpu`.
 * Returns undefined for any other object.
 */
export function readWorkloadObject(
  object: unknown,
  options: { modelLabel?: string } = {},
): ReadWorkload | undefined {
  if (!isObject(object) || !isWorkloadKind(object.kind)) return undefined;
  const kind = object.kind;
  const metadata = objectAt(object, 'metadata');
  const templatePath = POD_TEMPLATE_PATH[kind];
  let template: Json = object;
  for (const key of templatePath) template = objectAt(template, key);
  const prefix = templatePath.length > 0 ? `${templatePath.join('.')}.` : '';
  const podMeta = objectAt(template, 'metadata');
  const podSpec = objectAt(template, 'spec');
  const annotations = stringMap(podMeta.annotations);
  const positional = annotations[VKE.positionalMultiCardAnnotation]
    ?.split(',')
    .map((n) => n.trim());
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const pinned = modelOf(podSpec, modelLabel);
  const rawContainers = Array.isArray(podSpec.containers) ? podSpec.containers : [];

  let usesMgpu = false;
  const unequalLimits: ReadWorkload['unequalLimits'] = [];
  const unexpressed: UnexpressedField[] = [];
  const note = (path: string, reason: UnexpressedReason) =>
    unexpressed.push({
      path,
      reason,
      kept: (KEPT_UNEXPRESSED as readonly string[]).includes(reason),
    });
  for (const [key, value] of Object.entries(podSpec))
    if (!FORM_POD_FIELDS.has(key) && !isPodDefault(key, value, kind))
      note(`${prefix}spec.${key}`, 'pod-field');
  for (const path of unexpressibleModelPins(podSpec, modelLabel, prefix))
    note(path, 'model-requirement');
  const initContainers = Array.isArray(podSpec.initContainers) ? podSpec.initContainers : [];
  for (const [index, raw] of initContainers.entries()) {
    const resources = objectAt(raw, 'resources');
    const named = { ...stringMap(resources.requests), ...stringMap(resources.limits) };
    if (GPU_RESOURCE_NAMES.some((key) => named[key] !== undefined))
      note(`${prefix}spec.initContainers[${index}].resources`, 'init-container-gpu');
  }
  const containerNames = new Set(
    rawContainers.map((raw) => (isObject(raw) && typeof raw.name === 'string' ? raw.name : '')),
  );
  for (const key of Object.keys(annotations)) {
    if (!key.startsWith(VKE.multiCardAnnotationPrefix)) continue;
    if (!containerNames.has(key.slice(VKE.multiCardAnnotationPrefix.length)))
      note(`${prefix}metadata.annotations${keyPath(key)}`, 'multi-card-annotation');
  }
  const fieldPaths = new Map<string, string>();
  const containers: ContainerRequest[] = rawContainers.map((raw, index) => {
    const container = isObject(raw) ? raw : {};
    const name = typeof container.name === 'string' ? container.name : '';
    const image = typeof container.image === 'string' ? container.image : '';
    const resources = objectAt(container, 'resources');
    const limits = stringMap(resources.limits);
    const requests = stringMap(resources.requests);
    const base = `${prefix}spec.containers[${index}]`;
    const quantity = (key: string) => limits[key] ?? requests[key];
    const quantityPath = (key: string) =>
      `${base}.resources.${limits[key] !== undefined ? 'limits' : 'requests'}${keyPath(key)}`;
    for (const key of [VKE.coreResource, VKE.memoryResource, VKE.nvidiaResource]) {
      if (
        limits[key] !== undefined &&
        requests[key] !== undefined &&
        limits[key] !== requests[key]
      ) {
        unequalLimits.push({
          index,
          resource: key,
          path: `${base}.resources.requests${keyPath(key)}`,
        });
        note(`${base}.resources.requests${keyPath(key)}`, 'gpu-request-not-limit');
      }
    }
    for (const [key, value] of Object.entries(container))
      if (!FORM_CONTAINER_FIELDS.has(key) && !isContainerDefault(key, value, container))
        note(`${base}.${key}`, 'container-field');
    for (const side of ['requests', 'limits'] as const) {
      for (const key of Object.keys(stringMap(resources[side])))
        if (!GPU_RESOURCE_NAMES.includes(key))
          note(`${base}.resources.${side}${keyPath(key)}`, 'other-resource');
    }
    fieldPaths.set(`containers.${index}.name`, `${base}.name`);
    fieldPaths.set(`containers.${index}.image`, `${base}.image`);

    const core = quantity(VKE.coreResource);
    const memory = quantity(VKE.memoryResource);
    const annotationKey = multiCardAnnotation(name);
    const annotated = annotations[annotationKey];
    // The seed's per-container annotation wins; the positional form counts as multi-card
    // only above one card, since older clusters list every container there.
    const positionalCards = positional?.[index];
    const cardsText =
      annotated ??
      (positionalCards !== undefined && positionalCards !== '1' ? positionalCards : undefined);
    const cardsPath =
      annotated !== undefined
        ? `${prefix}metadata.annotations${keyPath(annotationKey)}`
        : `${prefix}metadata.annotations${keyPath(VKE.positionalMultiCardAnnotation)}`;
    const nvidia = quantity(VKE.nvidiaResource);

    let gpu: GpuRequest | undefined;
    if (core !== undefined || memory !== undefined) {
      usesMgpu = true;
      if (nvidia !== undefined) note(quantityPath(VKE.nvidiaResource), 'mixed-gpu-resources');
      const compute = computeFromCore(core);
      const memoryGiB = memoryFromMiB(memory);
      gpu = {
        type: 'mgpu',
        multiCard: cardsText !== undefined,
        ...(compute !== undefined ? { compute } : {}),
        ...(memoryGiB !== undefined ? { memoryGiB } : {}),
        ...(cardsText !== undefined ? { cards: cardsText } : {}),
      };
      fieldPaths.set(`containers.${index}.gpu.compute`, quantityPath(VKE.coreResource));
      fieldPaths.set(`containers.${index}.gpu.memoryGiB`, quantityPath(VKE.memoryResource));
      fieldPaths.set(`containers.${index}.gpu.cards`, cardsPath);
      fieldPaths.set(`containers.${index}.gpu.multiCard`, cardsPath);
    } else if (nvidia !== undefined) {
      // Whole cards take no multi-card annotation: the form would not write it again.
      if (annotated !== undefined)
        note(`${prefix}metadata.annotations${keyPath(annotationKey)}`, 'multi-card-annotation');
      gpu = {
        type: 'nvidia',
        multiCard: annotated !== undefined,
        cards: /^\s*\d+\s*$/.test(nvidia) ? Number(nvidia) : nvidia,
      };
      fieldPaths.set(`containers.${index}.gpu.cards`, quantityPath(VKE.nvidiaResource));
      fieldPaths.set(`containers.${index}.gpu.multiCard`, cardsPath);
    } else if (annotated !== undefined) {
      // A multi-card annotation on a container without GPU resources is still an mGPU intent.
      usesMgpu = true;
      note(`${prefix}metadata.annotations${keyPath(annotationKey)}`, 'multi-card-annotation');
      gpu = { type: 'none', multiCard: true };
      fieldPaths.set(`containers.${index}.gpu.multiCard`, cardsPath);
    }
    if (gpu !== undefined && gpu.type !== 'none' && pinned !== undefined) {
      gpu.model = pinned.model;
      fieldPaths.set(`containers.${index}.gpu.model`, `${prefix}${pinned.path}`);
    }
    return { name, image, ...(gpu !== undefined ? { gpu } : {}) };
  });

  const policyAnnotation = annotations[VKE.computePolicyAnnotation];
  const spec = objectAt(object, 'spec');
  // A Job has no replicas: the console's replicas are its pods at once (manifest.ts).
  const replicasField = kind === 'Job' ? 'parallelism' : 'replicas';
  const replicas = spec[replicasField];
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : 'default';
  const request: WorkloadRequest = {
    // Only the kinds the form makes are carried; absent reads as Deployment (spec §8).
    ...(kind === 'StatefulSet' || kind === 'Job' ? { kind } : {}),
    name,
    namespace,
    replicas: typeof replicas === 'number' ? replicas : replicas === undefined ? 1 : Number.NaN,
    ...(policyAnnotation !== undefined ? { computePolicy: policyAnnotation } : {}),
    containers,
  };
  fieldPaths.set('name', 'metadata.name');
  fieldPaths.set('namespace', 'metadata.namespace');
  fieldPaths.set('replicas', `spec.${replicasField}`);
  fieldPaths.set('containers', `${prefix}spec.containers`);
  fieldPaths.set(
    'computePolicy',
    `${prefix}metadata.annotations${keyPath(VKE.computePolicyAnnotation)}`,
  );

  return {
    kind,
    name,
    namespace,
    request,
    ...(policyAnnotation !== undefined ? { computePolicy: policyAnnotation } : {}),
    usesMgpu,
    hasName: typeof metadata.name === 'string',
    hasReplicas: replicas !== undefined,
    unequalLimits,
    unexpressed,
    objectPath: (requestPath) => fieldPaths.get(requestPath) ?? requestPath,
  };
}
