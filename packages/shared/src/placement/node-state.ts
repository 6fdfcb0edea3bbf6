import { DEFAULT_NODE_POLICY } from '../request.js';
import { gpuIndexAnnotation, MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import type { CardAssignment, CardState, NodeState, PodDemand } from './types.js';

/**
 * The few fields of a Kubernetes Node that placement reads. Structural, so `V1Node` from
 * `@kubernetes/client-node` and plain JSON both fit, and `packages/shared` stays free of I/O.
 */
export interface KubeNodeLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { unschedulable?: boolean };
  status?: {
    allocatable?: Record<string, string>;
    capacity?: Record<string, string>;
    conditions?: { type: string; status: string }[];
  };
}

export interface KubeContainerLike {
  name: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/** The few fields of a Kubernetes Pod that placement reads. */
export interface KubePodLike {
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { nodeName?: string; containers?: KubeContainerLike[] };
  status?: { phase?: string };
}

/** One container's cards on a node, as the scheduler's annotation records them. */
export interface ContainerAllocation {
  name: string;
  type: 'mgpu' | 'nvidia';
  cards: number[];
  perCardCompute: number;
  /** null: whole cards, which take all their memory. */
  perCardMemoryMiB: number | null;
}

/** What one bound pod holds on its node. */
export interface PodAllocation {
  key: string;
  node: string;
  containers: ContainerAllocation[];
}

export interface NodeStateOptions {
  modelLabel?: string;
}

const DEFAULT_MAX_PODS = 110;

/** Reads a plain Kubernetes quantity as a number ("46068", "110", "8Gi", "1k"); NaN when unreadable. */
export function parseQuantity(value: string | undefined): number {
  if (value === undefined) return Number.NaN;
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(Ki|Mi|Gi|Ti|k|M|G|T|m)?\s*$/.exec(value);
  if (!match?.[1]) return Number.NaN;
  const scale: Record<string, number> = {
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    m: 1e-3,
  };
  return Number(match[1]) * (match[2] ? (scale[match[2]] ?? 1) : 1);
}

const wholeNumber = (value: string | undefined) => {
  const n = parseQuantity(value);
  return Number.isFinite(n) ? Math.floor(n) : 0;
};

/** Recomputes the free totals that prune nodes before the card search. */
export function refreshNodeTotals(state: NodeState): void {
  let freeCompute = 0;
  let freeMemoryMiB = 0;
  let idleCards = 0;
  let freeInstanceSlots = 0;
  for (const card of state.cards) {
    if (card.wholeNvidia) continue;
    freeCompute += 100 - card.usedCompute;
    freeMemoryMiB += state.memoryMiBPerCard - card.usedMemoryMiB;
    freeInstanceSlots += MAX_INSTANCES_PER_CARD - card.instances;
    if (card.instances === 0 && card.usedCompute === 0) idleCards += 1;
  }
  state.freeCompute = freeCompute;
  state.freeMemoryMiB = freeMemoryMiB;
  state.idleCards = idleCards;
  state.freeInstanceSlots = freeInstanceSlots;
  state.version += 1;
}

/** A node with nothing allocated yet, read from its labels and allocatable (spec §5). */
export function nodeStateFromNode(node: KubeNodeLike, options: NodeStateOptions = {}): NodeState {
  const labels = node.metadata?.labels ?? {};
  const scheduleType = labels[VKE.scheduleLabel];
  const resourceType =
    scheduleType === 'mgpu' || scheduleType === 'nvidia' ? scheduleType : undefined;
  const allocatable = node.status?.allocatable ?? node.status?.capacity ?? {};
  let cardCount = 0;
  let memoryMiBPerCard = 0;
  if (resourceType === 'mgpu') {
    cardCount = Math.floor(wholeNumber(allocatable[VKE.coreResource]) / 100);
    // Spec §5: per-card memory is the node's total divided by its cards, integer division.
    memoryMiBPerCard =
      cardCount > 0 ? Math.floor(wholeNumber(allocatable[VKE.memoryResource]) / cardCount) : 0;
  } else if (resourceType === 'nvidia') {
    cardCount = wholeNumber(allocatable[VKE.nvidiaResource]);
  }
  const model = labels[options.modelLabel ?? VKE.defaultModelLabel];
  const policy = labels[VKE.computePolicyLabel] ?? DEFAULT_NODE_POLICY;
  const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready');
  const maxPods = wholeNumber(allocatable.pods) || DEFAULT_MAX_PODS;
  const cards: CardState[] = Array.from({ length: cardCount }, (_, index) => ({
    index,
    usedCompute: 0,
    usedMemoryMiB: 0,
    instances: 0,
    wholeNvidia: false,
  }));
  const state: NodeState = {
    name: node.metadata?.name ?? '',
    labels,
    resourceType,
    policy,
    model,
    schedulable:
      node.spec?.unschedulable !== true && (ready === undefined || ready.status === 'True'),
    memoryMiBPerCard,
    cards,
    pods: 0,
    maxPods,
    group:
      resourceType === undefined
        ? 'cpu'
        : `${model ?? 'unknown-model'}/${resourceType === 'nvidia' ? 'nvidia' : policy}`,
    freeCompute: 0,
    freeMemoryMiB: 0,
    idleCards: 0,
    freeInstanceSlots: 0,
    version: 0,
  };
  refreshNodeTotals(state);
  return state;
}

const podKey = (pod: KubePodLike) =>
  `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;

/** A pod that no longer holds anything on its node. */
export function isTerminalPod(pod: KubePodLike): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** Reads card indexes like "1,0"; undefined when the annotation is absent or malformed. */
export function parseCardIndexes(value: string | undefined): number[] | undefined {
  if (value === undefined || !/^\s*\d+(\s*,\s*\d+)*\s*$/.test(value)) return undefined;
  return value.split(',').map((part) => Number(part.trim()));
}

/**
 * What a bound (or assumed) pod holds: each GPU container's cards from its
 * `gpu-index-container-<name>` annotation, its per-card share from its resources.
 */
export function readPodAllocation(pod: KubePodLike): PodAllocation | undefined {
  const node = pod.spec?.nodeName;
  if (!node) return undefined;
  const annotations = pod.metadata?.annotations ?? {};
  const containers: ContainerAllocation[] = [];
  for (const container of pod.spec?.containers ?? []) {
    const resources = { ...container.resources?.limits, ...container.resources?.requests };
    const cards = parseCardIndexes(annotations[gpuIndexAnnotation(container.name)]);
    if (cards === undefined || cards.length === 0) continue;
    if (resources[VKE.nvidiaResource] !== undefined) {
      containers.push({
        name: container.name,
        type: 'nvidia',
        cards,
        perCardCompute: 100,
        perCardMemoryMiB: null,
      });
      continue;
    }
    const core = parseQuantity(resources[VKE.coreResource]);
    if (!Number.isFinite(core)) continue;
    const memory = parseQuantity(resources[VKE.memoryResource]);
    containers.push({
      name: container.name,
      type: 'mgpu',
      cards,
      perCardCompute: core / cards.length,
      perCardMemoryMiB: Number.isFinite(memory) ? memory / cards.length : null,
    });
  }
  return { key: podKey(pod), node, containers };
}

/** The allocation a successful `placePod` implies, for the scheduler's assume cache. */
export function allocationOf(
  demand: PodDemand,
  node: string,
  cards: CardAssignment,
): PodAllocation {
  return {
    key: demand.key,
    node,
    containers: demand.containers.map((container) => ({
      name: container.name,
      type: container.type,
      cards: cards[container.name] ?? [],
      perCardCompute: container.perCardCompute,
      perCardMemoryMiB: container.perCardMemoryMiB,
    })),
  };
}

function changeAllocation(state: NodeState, allocation: PodAllocation, sign: 1 | -1): void {
  for (const container of allocation.containers) {
    for (const index of container.cards) {
      const card = state.cards[index];
      if (card === undefined) continue;
      if (container.type === 'nvidia') {
        card.wholeNvidia = sign === 1;
        card.usedCompute = sign === 1 ? 100 : 0;
        card.usedMemoryMiB = sign === 1 ? state.memoryMiBPerCard : 0;
        continue;
      }
      const memory = container.perCardMemoryMiB ?? state.memoryMiBPerCard;
      card.usedCompute = Math.max(0, card.usedCompute + sign * container.perCardCompute);
      card.usedMemoryMiB = Math.max(0, card.usedMemoryMiB + sign * memory);
      card.instances = Math.max(0, card.instances + sign);
    }
  }
  state.pods = Math.max(0, state.pods + sign);
  refreshNodeTotals(state);
}

/** Books a pod's cards on its node (a bound pod, or one the scheduler has just assumed). */
export function applyAllocation(state: NodeState, allocation: PodAllocation): void {
  changeAllocation(state, allocation, 1);
}

/** Gives a pod's cards back when it goes away. */
export function releaseAllocation(state: NodeState, allocation: PodAllocation): void {
  changeAllocation(state, allocation, -1);
}

/**
 * Node states from Kubernetes Nodes and the pods already on them: what the scheduler starts
 * from and what the BFF's placement preview computes against.
 */
export function buildNodeStates(
  nodes: readonly KubeNodeLike[],
  pods: readonly KubePodLike[],
  options: NodeStateOptions = {},
): NodeState[] {
  const byName = new Map<string, NodeState>();
  for (const node of nodes) {
    const state = nodeStateFromNode(node, options);
    byName.set(state.name, state);
  }
  for (const pod of pods) {
    if (isTerminalPod(pod)) continue;
    const nodeName = pod.spec?.nodeName;
    const state = nodeName ? byName.get(nodeName) : undefined;
    if (state === undefined) continue;
    const allocation = readPodAllocation(pod);
    if (allocation) applyAllocation(state, allocation);
  }
  return [...byName.values()];
}
