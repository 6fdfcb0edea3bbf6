/**
 * Placement fixtures for the placement tests: Kubernetes nodes and node states from a short
 * spec, GPU containers and pods as the demand reader would build them.
 */
import { allocationOf, applyAllocation } from '../ledger/book.js';
import { type CardType, WHOLE_CARD } from '../ledger/claim.js';
import { type KubeNodeLike, nodeStateFromNode } from '../placement/node-state.js';
import { placePod } from '../placement/place-pod.js';
import type { CardPolicy, ContainerDemand, NodeState, PodDemand } from '../placement/types.js';
import { VKE } from '../vke.js';

export interface NodeSpec {
  name: string;
  type?: CardType | 'none';
  policy?: string;
  model?: string;
  cards?: number;
  memoryMiBPerCard?: number;
}

export function kubeNode(spec: NodeSpec): KubeNodeLike {
  const type = spec.type ?? 'mgpu';
  const cards = spec.cards ?? 2;
  const labels: Record<string, string> = {};
  const allocatable: Record<string, string> = { pods: '110' };
  if (type !== 'none') {
    labels[VKE.scheduleLabel] = type;
    labels[VKE.defaultModelLabel] = spec.model ?? 'NVIDIA-L20';
  }
  if (spec.policy) labels[VKE.computePolicyLabel] = spec.policy;
  if (type === 'mgpu') {
    allocatable[VKE.coreResource] = String(cards * 100);
    allocatable[VKE.memoryResource] = String(cards * (spec.memoryMiBPerCard ?? 46068));
  } else if (type === 'nvidia') {
    allocatable[VKE.nvidiaResource] = String(cards);
  }
  return { metadata: { name: spec.name, labels }, status: { allocatable } };
}

export const node = (spec: NodeSpec): NodeState => nodeStateFromNode(kubeNode(spec));

export const mgpu = (
  name: string,
  computePercent: number,
  memoryMiB: number | null,
  cards = 1,
  multiCard = cards > 1,
): ContainerDemand => ({
  name,
  type: 'mgpu',
  multiCard,
  wholeCards: computePercent === 100,
  cards,
  perCard: { computePercent, memoryMiB },
});

export const nvidia = (name: string, cards: number): ContainerDemand => ({
  name,
  type: 'nvidia',
  multiCard: false,
  wholeCards: true,
  cards,
  perCard: WHOLE_CARD,
});

export const pod = (containers: ContainerDemand[], extra: Partial<PodDemand> = {}): PodDemand => ({
  key: 'default/p',
  containers,
  policy: 'fixed-share',
  ...extra,
});

/** Books a placement so the next one sees it (what the scheduler's assume cache does). */
export function place(demand: PodDemand, nodes: NodeState[], cardPolicy?: CardPolicy) {
  const result = placePod(demand, nodes, cardPolicy ? { cardPolicy } : {});
  if (result.ok) {
    const state = nodes.find((candidate) => candidate.name === result.node);
    if (state) applyAllocation(state, allocationOf(demand, result.node, result.cards));
  }
  return result;
}
