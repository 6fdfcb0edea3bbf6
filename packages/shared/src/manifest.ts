import type { ContainerShare } from './card-shares.js';
import type { WorkloadRequest } from './request.js';
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

/** The `apps/v1` Deployment the console writes (spec §4). */
export interface DeploymentManifest {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: { affinity?: { nodeAffinity: NodeAffinity }; containers: ManifestContainer[] };
    };
  };
}

/** The label that ties a Deployment to its pods. */
export const APP_LABEL = 'app.kubernetes.io/name';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'mgpu-console';

/** A GPU container's requests (= limits): what the API server and a ResourceQuota count. */
export function containerResources(share: ContainerShare): ResourceList {
  if (share.type === 'nvidia') return { [VKE.nvidiaResource]: String(share.cards) };
  const resources: ResourceList = { [VKE.coreResource]: String(share.computePercent) };
  if (share.memoryMiB !== null) resources[VKE.memoryResource] = String(share.memoryMiB);
  return resources;
}

/**
 * Builds the Deployment of a valid request: multi-card and policy annotations on the pod
 * template, requests equal to limits, and required node affinity on the GPU model label.
 */
export function buildDeployment(
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  options: ManifestOptions = {},
): DeploymentManifest {
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
  const labels = { [APP_LABEL]: request.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: request.name,
      namespace: request.namespace,
      labels: { ...labels, [MANAGED_BY_LABEL]: MANAGED_BY },
    },
    spec: {
      replicas: request.replicas,
      selector: { matchLabels: { ...labels } },
      template: {
        metadata: {
          labels: { ...labels },
          ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        },
        spec: {
          ...(model !== undefined
            ? {
                affinity: {
                  nodeAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: {
                      nodeSelectorTerms: [
                        {
                          matchExpressions: [
                            {
                              key: options.modelLabel ?? VKE.defaultModelLabel,
                              operator: 'In' as const,
                              values: [model],
                            },
                          ],
                        },
                      ],
                    },
                  },
                },
              }
            : {}),
          containers: request.containers.map((container, index) => {
            const share = shareOf.get(index);
            const resources = share ? containerResources(share) : undefined;
            return {
              name: container.name,
              image: container.image.trim(),
              ...(resources
                ? { resources: { requests: resources, limits: { ...resources } } }
                : {}),
            };
          }),
        },
      },
    },
  };
}
