import type { ContainerShare } from './card-shares.js';
import { type WorkloadRequest, workloadKindOf } from './request.js';
import { multiCardAnnotation, VKE } from './vke.js';

export interface ManifestOptions {
  /** Node label that carries the GPU model; VKE's `machine.cluster.vke.volcengine.com/gpu-name` by default. */
  modelLabel?: string;
}

export type ResourceList = Record<string, string>;

export interface ManifestContainer {
  name: string;
  image: string;
  resources?: { requests: ResourceList; limits: ResourceList };
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution: {
    nodeSelectorTerms: { matchExpressions: { key: string; operator: 'In'; values: string[] }[] }[];
  };
}

export interface PodTemplateManifest {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    affinity?: { nodeAffinity: NodeAffinity };
    containers: ManifestContainer[];
    /** Jobs only: a Job's pods must not restart `Always`. */
    restartPolicy?: 'OnFailure' | 'Never';
  };
}

interface ObjectMeta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
}

/** The `apps/v1` Deployment the console writes (spec §4). */
export interface DeploymentManifest {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
  metadata: ObjectMeta;
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: PodTemplateManifest;
  };
}

/** The `apps/v1` StatefulSet (spec §8 `kind`): the same pod template, governed by a headless Service. */
export interface StatefulSetManifest {
  apiVersion: 'apps/v1';
  kind: 'StatefulSet';
  metadata: ObjectMeta;
  spec: {
    replicas: number;
    /** The headless Service of the same name (`buildHeadlessService`) gives the pods their DNS names. */
    serviceName: string;
    selector: { matchLabels: Record<string, string> };
    template: PodTemplateManifest;
  };
}

/**
 * The `batch/v1` Job (spec §8 `kind`). A Job has no replicas: the request's `replicas` is how
 * many pods run at once (`parallelism`) and how many must succeed (`completions`). Only
 * `parallelism` can change later; Kubernetes keeps `completions` and the pod template fixed.
 */
export interface JobManifest {
  apiVersion: 'batch/v1';
  kind: 'Job';
  metadata: ObjectMeta;
  spec: {
    parallelism: number;
    completions: number;
    backoffLimit: number;
    template: PodTemplateManifest;
  };
}

export type WorkloadManifest = DeploymentManifest | StatefulSetManifest | JobManifest;

/** The headless Service a StatefulSet names as its `serviceName`. */
export interface HeadlessServiceManifest {
  apiVersion: 'v1';
  kind: 'Service';
  metadata: ObjectMeta;
  spec: { clusterIP: 'None'; selector: Record<string, string> };
}

/** The label that ties a Deployment to its pods. */
export const APP_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'mgpu-console';

/**
 * Whether the console made this object (spec §8): the one test behind `not-managed`, which
 * every mutation of an existing workload applies, and the list's `managedByConsole`.
 */
export const isManagedByConsole = (object: { metadata?: { labels?: Record<string, string> } }) =>
  object.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY;

/** A GPU container's requests (= limits): what the API server and a ResourceQuota count. */
export function containerResources(share: ContainerShare): ResourceList {
  if (share.type === 'nvidia') return { [VKE.nvidiaResource]: String(share.cards) };
  const resources: ResourceList = { [VKE.coreResource]: String(share.computePercent) };
  if (share.memoryMiB !== null) resources[VKE.memoryResource] = String(share.memoryMiB);
  return resources;
}

/**
 * The pod template of a valid request: multi-card and policy annotations, requests equal to
 * limits, and required node affinity on the GPU model label (spec §4). Every kind shares it.
 */
export function buildPodTemplate(
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  options: ManifestOptions = {},
): PodTemplateManifest {
  const shareOf = new Map(shares.map((share) => [share.index, share]));
  const annotations: Record<string, string> = {};
  for (const share of shares) {
    if (share.type === 'mgpu' && share.multiCard) {
      annotations[multiCardAnnotation(share.name)] = String(share.cards);
    }
  }
  const policy = request.computePolicy?.trim();
  if (policy) annotations[VKE.computePolicyAnnotation] = policy;

  const model = shares.find((share) => share.model !== undefined)?.model;
  return {
    metadata: {
      labels: { [APP_LABEL]: request.name },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: {
      ...(model !== undefined
        ? {
            affinity: {
              nodeAffinity: modelAffinity(options.modelLabel ?? VKE.defaultModelLabel, model),
            },
          }
        : {}),
      containers: request.containers.map((container, index) => {
        const share = shareOf.get(index);
        const resources = share ? containerResources(share) : undefined;
        return {
          name: container.name,
          image: container.image.trim(),
          ...(resources ? { resources: { requests: resources, limits: { ...resources } } } : {}),
        };
      }),
      // A Job's pod retries in place on failure: it keeps its cards instead of queueing again.
      ...(workloadKindOf(request) === 'Job' ? { restartPolicy: 'OnFailure' as const } : {}),
    },
  };
}

/** Required node affinity on one GPU model (spec §4). */
export function modelAffinity(modelLabel: string, model: string): NodeAffinity {
  return {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [
        { matchExpressions: [{ key: modelLabel, operator: 'In', values: [model] }] },
      ],
    },
  };
}

const objectMeta = (request: WorkloadRequest): ObjectMeta => ({
  name: request.name,
  namespace: request.namespace,
  labels: { [APP_LABEL]: request.name, [MANAGED_BY_LABEL]: MANAGED_BY },
});

/** Builds the Deployment of a valid request (spec §4). */
export function buildDeployment(
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  options: ManifestOptions = {},
): DeploymentManifest {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: objectMeta(request),
    spec: {
      replicas: request.replicas,
      selector: { matchLabels: { [APP_LABEL]: request.name } },
      template: buildPodTemplate(request, shares, options),
    },
  };
}

/** Builds the object of the request's kind (spec §8): Deployment, StatefulSet or Job. */
export function buildWorkload(
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  options: ManifestOptions = {},
): WorkloadManifest {
  const kind = workloadKindOf(request);
  if (kind === 'Deployment') return buildDeployment(request, shares, options);
  const template = buildPodTemplate(request, shares, options);
  if (kind === 'StatefulSet') {
    return {
      apiVersion: 'apps/v1',
      kind,
      metadata: objectMeta(request),
      spec: {
        replicas: request.replicas,
        serviceName: request.name,
        selector: { matchLabels: { [APP_LABEL]: request.name } },
        template,
      },
    };
  }
  return {
    apiVersion: 'batch/v1',
    kind,
    metadata: objectMeta(request),
    // The API server writes the Job's selector itself (its controller-uid label).
    spec: {
      parallelism: request.replicas,
      completions: request.replicas,
      backoffLimit: JOB_BACKOFF_LIMIT,
      template,
    },
  };
}

/** Kubernetes' own default: six retries before the Job counts as failed. */
export const JOB_BACKOFF_LIMIT = 6;

/**
 * The headless Service a StatefulSet needs (its `serviceName`): no cluster IP, the pods'
 * labels as selector. The BFF creates it beside the StatefulSet, owned by it.
 */
export function buildHeadlessService(request: WorkloadRequest): HeadlessServiceManifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: objectMeta(request),
    spec: { clusterIP: 'None', selector: { [APP_LABEL]: request.name } },
  };
}

/** The parts of a live Service that decide whether a StatefulSet can use it (a V1Service fits). */
export interface ServiceLike {
  spec?: { clusterIP?: string; selector?: Record<string, string> };
}

/**
 * Why an existing Service of the request's name cannot be the StatefulSet's headless Service
 * (rule `statefulset-service`): `not-headless` (it has a cluster IP, so the pods get no DNS
 * names) or `other-pods` (its selector is not the one the console writes, so it governs someone
 * else's pods); undefined when it is the Service the console would make, which is then reused.
 */
export function statefulSetServiceProblem(
  service: ServiceLike,
  request: WorkloadRequest,
): 'not-headless' | 'other-pods' | undefined {
  if (service.spec?.clusterIP !== 'None') return 'not-headless';
  const wanted = buildHeadlessService(request).spec.selector;
  const selector = service.spec.selector ?? {};
  const same =
    Object.keys(selector).length === Object.keys(wanted).length &&
    Object.entries(wanted).every(([key, value]) => selector[key] === value);
  return same ? undefined : 'other-pods';
}
