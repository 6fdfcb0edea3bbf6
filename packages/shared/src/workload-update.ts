/**
 * Editing a live workload (spec §8 `workload.update`): the request the form edits is written
 * back onto the object it was read from, touching only the fields the form manages. Labels,
 * volumes, env, other annotations, other resources (cpu, memory) and every field the console
 * does not know stay as they are, so objects not made by the console survive an edit.
 */
import type { ContainerShare } from './card-shares.js';
import { buildPodTemplate, type ManifestOptions } from './manifest.js';
import type { WorkloadRequest } from './request.js';
import { VKE } from './vke.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The child object at `key`, created when absent, so the caller can write into it. */
function childOf(parent: Json, key: string): Json {
  const child = parent[key];
  if (isObject(child)) return child;
  const created: Json = {};
  parent[key] = created;
  return created;
}

/** The resource names the form writes; any other resource of a container is the operator's. */
const GPU_RESOURCES: readonly string[] = [VKE.coreResource, VKE.memoryResource, VKE.nvidiaResource];

/** Annotation keys the form owns on the pod template (the older positional form included). */
const isFormAnnotation = (key: string) =>
  key.startsWith(VKE.multiCardAnnotationPrefix) ||
  key === VKE.positionalMultiCardAnnotation ||
  key === VKE.computePolicyAnnotation;

function mergeResources(live: unknown, written: Record<string, string> | undefined): Json {
  const resources: Json = isObject(live) ? { ...live } : {};
  for (const side of ['requests', 'limits'] as const) {
    const kept: Json = isObject(resources[side]) ? { ...(resources[side] as Json) } : {};
    for (const key of GPU_RESOURCES) delete kept[key];
    Object.assign(kept, written ?? {});
    if (Object.keys(kept).length > 0) resources[side] = kept;
    else delete resources[side];
  }
  return resources;
}

/**
 * Removes every requirement on the model label from the pod's node affinity and node selector,
 * dropping terms and objects left empty (an empty node selector term matches no node).
 * Returns whether the model was pinned through `nodeSelector`, so it is written back there.
 */
function unpinModel(podSpec: Json, modelLabel: string): { viaSelector: boolean } {
  let viaSelector = false;
  if (isObject(podSpec.nodeSelector) && modelLabel in podSpec.nodeSelector) {
    viaSelector = true;
    const selector = { ...podSpec.nodeSelector };
    delete selector[modelLabel];
    if (Object.keys(selector).length > 0) podSpec.nodeSelector = selector;
    else delete podSpec.nodeSelector;
  }
  const affinity = isObject(podSpec.affinity) ? podSpec.affinity : undefined;
  const nodeAffinity = isObject(affinity?.nodeAffinity) ? affinity.nodeAffinity : undefined;
  const required = isObject(nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : undefined;
  if (affinity === undefined || nodeAffinity === undefined || required === undefined)
    return { viaSelector };
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  const kept = terms.flatMap((term) => {
    if (!isObject(term)) return [term];
    const expressions = Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
    const others = expressions.filter(
      (expression) => !(isObject(expression) && expression.key === modelLabel),
    );
    if (others.length === expressions.length) return [term];
    const next: Json = { ...term };
    if (others.length > 0) next.matchExpressions = others;
    else delete next.matchExpressions;
    return Object.keys(next).length > 0 ? [next] : [];
  });
  if (kept.length > 0) required.nodeSelectorTerms = kept;
  else delete nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (Object.keys(nodeAffinity).length === 0) delete affinity.nodeAffinity;
  if (Object.keys(affinity).length === 0) delete podSpec.affinity;
  return { viaSelector };
}

/** Pins the pod to one model: in every required term (terms are ORed), or one new term. */
function pinModel(podSpec: Json, modelLabel: string, model: string, viaSelector: boolean): void {
  if (viaSelector) {
    podSpec.nodeSelector = {
      ...(isObject(podSpec.nodeSelector) ? podSpec.nodeSelector : {}),
      [modelLabel]: model,
    };
    return;
  }
  const required = childOf(
    childOf(childOf(podSpec, 'affinity'), 'nodeAffinity'),
    'requiredDuringSchedulingIgnoredDuringExecution',
  );
  const expression = { key: modelLabel, operator: 'In', values: [model] };
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  required.nodeSelectorTerms =
    terms.length === 0
      ? [{ matchExpressions: [expression] }]
      : terms.map((term) => {
          const next: Json = isObject(term) ? { ...term } : {};
          const expressions = Array.isArray(next.matchExpressions) ? next.matchExpressions : [];
          next.matchExpressions = [...expressions, expression];
          return next;
        });
}

/**
 * The live object with a valid request written onto it: replicas (a Job's `parallelism`), the
 * pod template's mGPU annotations (the seed's form; an older positional annotation is replaced
 * by it), each container's name, image and GPU resources (matched by position, as the request
 * was read), containers added or removed at the end, and the GPU model pin. Nothing else
 * changes; `metadata.resourceVersion` stays, so the update is refused if the object moved on.
 */
export function applyRequestToObject(
  live: Json,
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  options: ManifestOptions = {},
): Json {
  const next = JSON.parse(JSON.stringify(live)) as Json;
  const built = buildPodTemplate(request, shares, options);
  const spec = childOf(next, 'spec');
  if (next.kind === 'Job') spec.parallelism = request.replicas;
  else spec.replicas = request.replicas;

  const template = childOf(spec, 'template');
  const podMeta = childOf(template, 'metadata');
  const annotations: Json = isObject(podMeta.annotations) ? { ...podMeta.annotations } : {};
  for (const key of Object.keys(annotations)) if (isFormAnnotation(key)) delete annotations[key];
  Object.assign(annotations, built.metadata.annotations ?? {});
  if (Object.keys(annotations).length > 0) podMeta.annotations = annotations;
  else delete podMeta.annotations;

  const podSpec = childOf(template, 'spec');
  const liveContainers = Array.isArray(podSpec.containers) ? podSpec.containers : [];
  podSpec.containers = built.spec.containers.map((container, index) => {
    const old = liveContainers[index];
    const kept: Json = isObject(old) ? { ...old } : {};
    const resources = mergeResources(kept.resources, container.resources?.limits);
    const written: Json = { ...kept, name: container.name, image: container.image };
    if (Object.keys(resources).length > 0) written.resources = resources;
    else delete written.resources;
    return written;
  });

  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const { viaSelector } = unpinModel(podSpec, modelLabel);
  const model = shares.find((share) => share.model !== undefined)?.model;
  if (model !== undefined) pinModel(podSpec, modelLabel, model, viaSelector);
  return next;
}

/** One field the operator changed, as the edit form shows it before applying. */
export interface RequestChange {
  path: string;
  before: string | number | boolean | null;
  after: string | number | boolean | null;
}

type Leaf = string | number | boolean | null;

function requestFields(request: WorkloadRequest): Map<string, Leaf> {
  const fields = new Map<string, Leaf>([
    ['kind', request.kind ?? 'Deployment'],
    ['name', request.name],
    ['namespace', request.namespace],
    ['replicas', request.replicas],
    ['computePolicy', request.computePolicy ?? null],
  ]);
  request.containers.forEach((container, index) => {
    const at = `containers.${index}`;
    fields.set(`${at}.name`, container.name);
    fields.set(`${at}.image`, container.image);
    const gpu = container.gpu;
    fields.set(`${at}.gpu.type`, gpu?.type ?? 'none');
    if (gpu === undefined || gpu.type === 'none') return;
    fields.set(`${at}.gpu.multiCard`, gpu.multiCard);
    fields.set(`${at}.gpu.compute`, gpu.compute ?? null);
    fields.set(`${at}.gpu.memoryGiB`, gpu.memoryGiB ?? null);
    fields.set(`${at}.gpu.cards`, gpu.cards === undefined ? null : String(gpu.cards));
    fields.set(`${at}.gpu.model`, gpu.model || null);
  });
  return fields;
}

/** The fields that differ between the live request and the edited one, in the form's order. */
export function diffRequests(before: WorkloadRequest, after: WorkloadRequest): RequestChange[] {
  const old = requestFields(before);
  const next = requestFields(after);
  const paths = [...new Set([...next.keys(), ...old.keys()])];
  return paths.flatMap((path) => {
    const was = old.get(path) ?? null;
    const now = next.get(path) ?? null;
    return was === now ? [] : [{ path, before: was, after: now }];
  });
}

/** The model-label requirements of the pod's required node affinity, each term kept in place. */
function modelAffinityOf(podSpec: Json, modelLabel: string): Json | undefined {
  const affinity = isObject(podSpec.affinity) ? podSpec.affinity : {};
  const nodeAffinity = isObject(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required = isObject(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
    ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
    : {};
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms : [];
  const modelTerms = terms.flatMap((term) => {
    const expressions =
      isObject(term) && Array.isArray(term.matchExpressions) ? term.matchExpressions : [];
    const model = expressions.filter((e) => isObject(e) && e.key === modelLabel);
    return model.length > 0 ? [{ matchExpressions: model }] : [];
  });
  return modelTerms.length > 0
    ? {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: modelTerms },
        },
      }
    : undefined;
}

/**
 * The object cut down to the fields the form manages — what `applyRequestToObject` reads and
 * writes: kind, name, replicas (a Job's parallelism), the pod template's mGPU annotations, each
 * container's name, image and GPU resources, and the GPU-model pin. The edit form's YAML diff
 * compares two of these, so env values, volumes and the rest of the spec never leave the BFF.
 */
export function managedFieldsOf(object: Json, options: ManifestOptions = {}): Json {
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const spec = isObject(object.spec) ? object.spec : {};
  const template = isObject(spec.template) ? spec.template : {};
  const podMeta = isObject(template.metadata) ? template.metadata : {};
  const podSpec = isObject(template.spec) ? template.spec : {};
  const annotations = Object.fromEntries(
    Object.entries(isObject(podMeta.annotations) ? podMeta.annotations : {}).filter(([key]) =>
      isFormAnnotation(key),
    ),
  );
  const gpuOnly = (side: unknown) => {
    const kept = Object.fromEntries(
      Object.entries(isObject(side) ? side : {}).filter(([key]) => GPU_RESOURCES.includes(key)),
    );
    return Object.keys(kept).length > 0 ? kept : undefined;
  };
  const containers = (Array.isArray(podSpec.containers) ? podSpec.containers : []).map((raw) => {
    const container = isObject(raw) ? raw : {};
    const resources = isObject(container.resources) ? container.resources : {};
    const requests = gpuOnly(resources.requests);
    const limits = gpuOnly(resources.limits);
    return {
      name: container.name,
      image: container.image,
      ...(requests || limits
        ? { resources: { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) } }
        : {}),
    };
  });
  const selector = isObject(podSpec.nodeSelector) ? podSpec.nodeSelector[modelLabel] : undefined;
  const affinity = modelAffinityOf(podSpec, modelLabel);
  const replicasField = object.kind === 'Job' ? 'parallelism' : 'replicas';
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { name: metadata.name, namespace: metadata.namespace },
    spec: {
      ...(spec[replicasField] !== undefined ? { [replicasField]: spec[replicasField] } : {}),
      template: {
        ...(Object.keys(annotations).length > 0 ? { metadata: { annotations } } : {}),
        spec: {
          containers,
          ...(selector !== undefined ? { nodeSelector: { [modelLabel]: selector } } : {}),
          ...(affinity !== undefined ? { affinity } : {}),
        },
      },
    },
  };
}
