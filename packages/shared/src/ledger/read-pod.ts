import { parseQuantity } from '../quantity.js';
import { gpuIndexAnnotation, VKE } from '../vke.js';
import type { ContainerClaim, GpuClaim, PodClaims } from './claim.js';
import { WHOLE_CARD_CLAIM } from './claim.js';

export interface KubeContainerLike {
  name: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/**
 * The few fields of a Kubernetes Pod the ledger reads. Structural, so `V1Pod` from
 * `@kubernetes/client-node` and plain JSON both fit; containers are checked as they are read.
 */
export interface KubePodLike {
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { nodeName?: string; containers?: readonly unknown[] };
  status?: { phase?: string };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The pod's containers that have a name; anything else in the list holds nothing. */
const containersOf = (pod: KubePodLike): KubeContainerLike[] =>
  (pod.spec?.containers ?? []).filter(
    (container): container is KubeContainerLike =>
      isObject(container) && typeof container.name === 'string',
  );

/** Reads card indexes like "1,0"; undefined when the annotation is absent or malformed. */
export function parseCardIndexes(value: string | undefined): number[] | undefined {
  if (value === undefined || !/^\s*\d+(\s*,\s*\d+)*\s*$/.test(value)) return undefined;
  return value.split(',').map((part) => Number(part.trim()));
}

/** The scheduler's card choice for one container (`gpu-index-container-<name>`), if any. */
export const schedulerCards = (pod: KubePodLike, container: string): number[] | undefined =>
  parseCardIndexes(pod.metadata?.annotations?.[gpuIndexAnnotation(container)]);

/**
 * One container's share per card from its own resources, split over the cards it was given:
 * `nvidia.com/gpu` takes whole cards. Requests win over limits, as the API server defaults one
 * from the other and requires them equal for extended resources.
 */
function claimFromResources(container: KubeContainerLike, cards: number): GpuClaim | undefined {
  const resources = { ...container.resources?.limits, ...container.resources?.requests };
  if (resources[VKE.nvidiaResource] !== undefined) return WHOLE_CARD_CLAIM;
  const core = parseQuantity(resources[VKE.coreResource]);
  if (!Number.isFinite(core)) return undefined;
  const memory = parseQuantity(resources[VKE.memoryResource]);
  return {
    type: 'mgpu',
    perCard: {
      computePercent: core / cards,
      memoryMiB: Number.isFinite(memory) ? memory / cards : null,
    },
  };
}

/**
 * What a bound (or assumed) pod holds, as the scheduler books it: each GPU container's cards
 * from the scheduler's `gpu-index-container-<name>` annotation, its per-card share from its
 * resources — or from `shares`, the console's reading of the pod's request where its rules
 * accept the container (placement's `readRequestedClaims`). Cheap without `shares` (no rule
 * engine): the scheduler and every node-state build read each pod.
 */
export function readPodClaims(
  pod: KubePodLike,
  shares?: readonly (GpuClaim & { name: string })[],
): PodClaims | undefined {
  const node = pod.spec?.nodeName;
  if (!node) return undefined;
  const containers: ContainerClaim[] = [];
  for (const container of containersOf(pod)) {
    const cards = schedulerCards(pod, container.name);
    if (cards === undefined || cards.length === 0) continue;
    const share = shares?.find((candidate) => candidate.name === container.name);
    const claim: GpuClaim | undefined = share
      ? { type: share.type, perCard: share.perCard }
      : claimFromResources(container, cards.length);
    if (claim !== undefined) containers.push({ name: container.name, cards, ...claim });
  }
  return {
    key: `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`,
    node,
    containers,
  };
}
