import { applyAllocation, emptyCard, refreshNodeTotals } from '../ledger/book.js';
import { type KubePodLike, readPodClaims } from '../ledger/read-pod.js';
import { parseQuantity } from '../quantity.js';
import { DEFAULT_NODE_POLICY } from '../request.js';
import { VKE } from '../vke.js';
import type { CardState, NodeState } from './types.js';

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

export interface NodeStateOptions {
  modelLabel?: string;
}

const DEFAULT_MAX_PODS = 110;

const wholeNumber = (value: string | undefined) => {
  const n = parseQuantity(value);
  return Number.isFinite(n) ? Math.floor(n) : 0;
};

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
  const cards: CardState[] = Array.from({ length: cardCount }, (_, index) => emptyCard(index));
  return nodeStateOf({
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
  });
}

/** What a node state is made of; the free totals follow from its cards. */
export type NodeStateFields = Omit<
  NodeState,
  'freeCompute' | 'freeMemoryMiB' | 'idleCards' | 'freeInstanceSlots' | 'version'
>;

/**
 * A node state with its free totals computed from what is booked on its cards (the scheduler's
 * nodes, and the dashboard's from the live records). Fields copied one by one: every state has
 * the same shape, which keeps the hot loops over them monomorphic.
 */
export function nodeStateOf(fields: NodeStateFields): NodeState {
  const state: NodeState = {
    name: fields.name,
    labels: fields.labels,
    resourceType: fields.resourceType,
    policy: fields.policy,
    model: fields.model,
    schedulable: fields.schedulable,
    memoryMiBPerCard: fields.memoryMiBPerCard,
    cards: fields.cards,
    pods: fields.pods,
    maxPods: fields.maxPods,
    group: fields.group,
    freeCompute: 0,
    freeMemoryMiB: 0,
    idleCards: 0,
    freeInstanceSlots: 0,
    version: 0,
  };
  refreshNodeTotals(state);
  return state;
}

/** A pod that no longer holds anything on its node. */
export function isTerminalPod(pod: KubePodLike): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
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
    const claims = readPodClaims(pod);
    if (claims) applyAllocation(state, claims);
  }
  return [...byName.values()];
}
