/**
 * The shapes of the two-layer placement (spec §5): what a pod asks for, what a node has left,
 * and what the algorithm answers. Plain data, so the scheduler, the BFF's placement preview and
 * the tests build them alike.
 */
import type { CardType, GpuClaim } from '../ledger/claim.js';
import type { RejectionCode, RejectionParams, RejectionReason } from './rejections.js';

// Importers that take the placement shapes from here keep finding the reason beside them.
export type { RejectionReason } from './rejections.js';

/** Card-level policies of the public scheduler: fill fuller cards first (default) or emptier ones. */
export const CARD_POLICIES = ['binpack', 'spread'] as const;
export type CardPolicy = (typeof CARD_POLICIES)[number];

/** One physical card of a node and what the ledger has booked on it (`bookOnCard`). */
export interface CardState {
  index: number;
  /** Percent of the card's compute already given out (0–100). */
  usedCompute: number;
  usedMemoryMiB: number;
  /** mGPU instances on the card: one per container that uses it (at most 16). */
  instances: number;
  /** The card is handed out whole as `nvidia.com/gpu`: no mGPU instance may join it. */
  wholeNvidia: boolean;
}

/** A node as the scheduler sees it: its pool's labels, its cards, and precomputed free totals. */
export interface NodeState {
  name: string;
  labels: Readonly<Record<string, string>>;
  /** `vke.node.gpu.schedule`; undefined for a node without GPUs. */
  resourceType: CardType | undefined;
  /** The pool's compute policy (label absent = fixed-share). */
  policy: string;
  model: string | undefined;
  /** False when cordoned or not Ready. */
  schedulable: boolean;
  /** Card memory = node allocatable mgpu-memory / cards, integer division (spec §5). */
  memoryMiBPerCard: number;
  cards: CardState[];
  /** Pods bound to the node (any kind) and how many it takes. */
  pods: number;
  maxPods: number;
  /** Rejections are grouped by this: `<model>/<policy>` for mGPU, `<model>/nvidia`, or `cpu`. */
  group: string;
  /** Free totals over the cards, kept current by `refreshNodeTotals`; they prune before the card search. */
  freeCompute: number;
  freeMemoryMiB: number;
  /** Cards with nothing on them (what whole-card containers need). */
  idleCards: number;
  freeInstanceSlots: number;
  /**
   * Bumped by every change through `refreshNodeTotals`; `placePod` reuses a node's verdict for
   * the same demand while it is unchanged. Change node states only through the helpers.
   */
  version: number;
}

/** One GPU container of a pod: its claim per card (the ledger's), and how many distinct cards. */
export interface ContainerDemand extends GpuClaim {
  name: string;
  multiCard: boolean;
  /** Every card is taken whole (nvidia, or mGPU with 100 % per card). */
  wholeCards: boolean;
  /** Distinct cards the container needs. */
  cards: number;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
}

/** What a pod asks of a node. A pod without GPU containers has `containers: []`. */
export interface PodDemand {
  /** `namespace/name`, for messages and the assume cache. */
  key: string;
  containers: ContainerDemand[];
  /** The pod's `vke.volcengine.com/mgpu-compute-policy`; absent = fixed-share. */
  policy: string;
  /** GPU model asked for through the required node affinity, if any. */
  model?: string;
  nodeSelector?: Readonly<Record<string, string>>;
  /** Required node affinity terms (ORed); the model term is one of them. */
  nodeSelectorTerms?: readonly NodeSelectorTerm[];
  /** Rule ids the pod's own GPU fields break; such a pod is placed nowhere. */
  invalidRules?: readonly string[];
}

export interface PlacementOptions {
  cardPolicy?: CardPolicy;
  /** Node label of the GPU model; VKE's `machine.cluster.vke.volcengine.com/gpu-name` by default. */
  modelLabel?: string;
  /** Leaves of the card search per node before the best one found so far is taken. */
  searchLimit?: number;
  /**
   * Also say why every other node would not take the pod when one does (the preview's "why not
   * the others"). Off for the scheduler, whose hot path must not word what nobody reads.
   */
  explainRejected?: boolean;
}

export interface Rejection {
  /** The node group (`NVIDIA-L20/fixed-share`, `Tesla-V100/nvidia`, `cpu`) or `pod`. */
  group: string;
  nodes: string[];
  reason: RejectionReason;
  /** Language-free: `rejectionText` words it with `params` in the operator's language. */
  code: RejectionCode;
  params: RejectionParams;
  /** English, kube-scheduler-like, for the scheduler's events and scripts. */
  message: string;
}

/** Card indexes per container name, as written to `gpu-index-container-<name>`. */
export type CardAssignment = Record<string, number[]>;

export type PlacementResult =
  | {
      ok: true;
      node: string;
      cards: CardAssignment;
      score: number;
      /** With `explainRejected`: why the nodes that would not take the pod would not. */
      rejections?: Rejection[];
      /** With `explainRejected`: how many nodes would take the pod (the chosen one included). */
      fitting?: number;
    }
  | { ok: false; rejections: Rejection[]; totalNodes: number };
