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
  return [...new NodeStatesBuilder(options).build(nodes, pods)];
}

/** What one node's state was built from, by identity, and the state. */
interface BuiltNode {
  node: KubeNodeLike;
  pods: readonly KubePodLike[];
  state: NodeState;
}

const NO_PODS: readonly KubePodLike[] = [];

/** The same objects in the same order: what a part built from them can be kept by (an informer's objects). */
export const sameItems = <T>(a: readonly T[], b: readonly T[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/**
 * `buildNodeStates` kept across changes of an informer cache: a node's state is built again only
 * when its Node object or the pods on it are other objects than last time (an informer hands out
 * the same objects until a watch event replaces one). On 1,000 nodes × 3,000 pods a full build
 * is ~20 ms and under churn every change paid it (the preview, the pools, `/metrics`); now a
 * change costs grouping the pods by node plus the nodes it touched, and an unchanged node keeps
 * its state object — so what is memoised per node state (`placePod`'s card search, a node's
 * pool part, its `/metrics` lines) stays valid. The states are shared: read-only to callers
 * (clone one before booking on it). `build` returns the previous array when nothing changed.
 */
export class NodeStatesBuilder {
  private built = new Map<string, BuiltNode>();
  private states: readonly NodeState[] = [];

  constructor(private readonly options: NodeStateOptions = {}) {}

  build(nodes: readonly KubeNodeLike[], pods: readonly KubePodLike[]): readonly NodeState[] {
    // By name, as `nodeStateFromNode` names them; a repeated name keeps its first place, last object.
    const byName = new Map<string, KubeNodeLike>();
    for (const node of nodes) byName.set(node.metadata?.name ?? '', node);
    const podsOn = new Map<string, KubePodLike[]>();
    for (const pod of pods) {
      if (isTerminalPod(pod)) continue;
      const nodeName = pod.spec?.nodeName;
      if (!nodeName || !byName.has(nodeName)) continue;
      const on = podsOn.get(nodeName);
      if (on === undefined) podsOn.set(nodeName, [pod]);
      else on.push(pod);
    }
    const built = new Map<string, BuiltNode>();
    const states: NodeState[] = [];
    let changed = byName.size !== this.states.length;
    for (const [name, node] of byName) {
      const on = podsOn.get(name) ?? NO_PODS;
      const known = this.built.get(name);
      const entry =
        known !== undefined && known.node === node && sameItems(known.pods, on)
          ? known
          : { node, pods: on, state: this.stateOf(node, on) };
      if (entry.state !== this.states[states.length]) changed = true;
      built.set(name, entry);
      states.push(entry.state);
    }
    this.built = built;
    if (changed) this.states = states;
    return this.states;
  }

  private stateOf(node: KubeNodeLike, pods: readonly KubePodLike[]): NodeState {
    const state = nodeStateFromNode(node, this.options);
    for (const pod of pods) {
      const claims = readPodClaims(pod);
      if (claims) applyAllocation(state, claims);
    }
    return state;
  }
}
