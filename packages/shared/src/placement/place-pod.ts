import { MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import type {
  CardAssignment,
  CardPolicy,
  CardState,
  ContainerDemand,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  NodeState,
  PlacementOptions,
  PlacementResult,
  PodDemand,
  Rejection,
  RejectionReason,
} from './types.js';

const NATIVE_BURST_SHARE = 'native-burst-share';
/** Weight of the core term in the card score (public scheduler default; memory gets the rest). */
export const CORE_SCORE_WEIGHT = 20;
const DEFAULT_SEARCH_LIMIT = 4096;
const EPSILON = 1e-9;

interface NodeVerdict {
  reason: RejectionReason;
  message: string;
}

const isFractional = (container: ContainerDemand) =>
  container.type === 'mgpu' && !container.wholeCards;

const percent = (value: number) => `${Math.round(value * 100) / 100}%`;

function describeContainer(container: ContainerDemand): string {
  if (container.wholeCards) return `${container.cards} whole card${container.cards > 1 ? 's' : ''}`;
  const memory =
    container.perCardMemoryMiB === null ? '' : ` and ${container.perCardMemoryMiB} MiB`;
  return `${container.cards} distinct card${container.cards > 1 ? 's' : ''} with ${percent(
    container.perCardCompute,
  )} compute${memory} free`;
}

function matchesRequirement(
  labels: Readonly<Record<string, string>>,
  requirement: NodeSelectorRequirement,
): boolean {
  const value = labels[requirement.key];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = Number(values[0]);
      const number = Number(value);
      if (value === undefined || !Number.isFinite(bound) || !Number.isFinite(number)) return false;
      return requirement.operator === 'Gt' ? number > bound : number < bound;
    }
    default:
      return false;
  }
}

/** Node affinity and node selector; a failure on the model label is reported as `model`. */
function checkSelectors(
  node: NodeState,
  demand: PodDemand,
  modelLabel: string,
): NodeVerdict | undefined {
  for (const [key, value] of Object.entries(demand.nodeSelector ?? {})) {
    if (node.labels[key] !== value) {
      return key === modelLabel
        ? { reason: 'model', message: `GPU model ${node.model ?? 'none'} is not ${value}` }
        : { reason: 'node-affinity', message: `node selector ${key}=${value} does not match` };
    }
  }
  const terms = demand.nodeSelectorTerms;
  if (terms === undefined || terms.length === 0) return undefined;
  let firstFailure: NodeSelectorRequirement | undefined;
  const termMatches = (term: NodeSelectorTerm) => {
    for (const requirement of term.matchExpressions ?? []) {
      if (!matchesRequirement(node.labels, requirement)) {
        firstFailure ??= requirement;
        return false;
      }
    }
    return true;
  };
  if (terms.some(termMatches)) return undefined;
  if (firstFailure?.key === modelLabel) {
    return {
      reason: 'model',
      message: `GPU model ${node.model ?? 'none'} is not ${(firstFailure.values ?? []).join(' or ')}`,
    };
  }
  return { reason: 'node-affinity', message: 'required node affinity does not match' };
}

/** The node layer: every check that needs no card search, cheapest first. */
function checkNode(
  node: NodeState,
  demand: PodDemand,
  podPolicy: string,
  modelLabel: string,
): NodeVerdict | undefined {
  if (!node.schedulable)
    return { reason: 'unschedulable', message: 'node is cordoned or not Ready' };
  const containers = demand.containers;
  if (containers.length > 0) {
    const types = [...new Set(containers.map((container) => container.type))];
    if (node.resourceType === undefined) {
      return { reason: 'resource-type', message: `node has no GPUs, pod needs ${types.join('+')}` };
    }
    if (types.some((type) => type !== node.resourceType)) {
      return {
        reason: 'resource-type',
        message: `resource type ${node.resourceType} does not match ${types.join('+')}`,
      };
    }
    const multiCard = containers.some((container) => container.multiCard);
    // Multi-card sharing needs native-burst-share on the node too (spec §2); fractional pods
    // go only to pools of their own policy; whole-card pods skip the match (spec §5).
    if (multiCard && node.policy !== NATIVE_BURST_SHARE) {
      return {
        reason: 'policy',
        message: `policy ${node.policy} does not match ${NATIVE_BURST_SHARE} (multi-card sharing)`,
      };
    }
    if (
      containers.some(isFractional) &&
      node.policy !== podPolicy &&
      node.resourceType === 'mgpu'
    ) {
      return { reason: 'policy', message: `policy ${node.policy} does not match ${podPolicy}` };
    }
  }
  if (demand.model !== undefined && node.model !== demand.model) {
    return { reason: 'model', message: `GPU model ${node.model ?? 'none'} is not ${demand.model}` };
  }
  const selectors = checkSelectors(node, demand, modelLabel);
  if (selectors) return selectors;
  if (node.pods >= node.maxPods)
    return { reason: 'pods', message: `node already runs ${node.maxPods} pods` };
  if (containers.length === 0) return undefined;

  // Pruning on the precomputed free totals: these hold for any card choice.
  let compute = 0;
  let memory = 0;
  let wholeCards = 0;
  let instances = 0;
  for (const container of containers) {
    if (container.cards > node.cards.length) {
      return {
        reason: 'cards',
        message: `${container.name} needs ${container.cards} cards, nodes have ${node.cards.length}`,
      };
    }
    if (container.wholeCards) {
      wholeCards += container.cards;
    } else {
      compute += container.perCardCompute * container.cards;
      memory += (container.perCardMemoryMiB ?? 0) * container.cards;
    }
    if (container.type === 'mgpu') instances += container.cards;
  }
  if (wholeCards > node.idleCards) {
    return { reason: 'idle-cards', message: `needs ${wholeCards} idle whole cards` };
  }
  if (compute + wholeCards * 100 > node.freeCompute) {
    return { reason: 'compute', message: `not enough free compute (needs ${percent(compute)})` };
  }
  if (memory + wholeCards * node.memoryMiBPerCard > node.freeMemoryMiB) {
    return { reason: 'memory', message: `not enough free GPU memory (needs ${memory} MiB)` };
  }
  if (instances > node.freeInstanceSlots) {
    return {
      reason: 'instance-limit',
      message: `no room for ${instances} more mGPU instances (${MAX_INSTANCES_PER_CARD} per card)`,
    };
  }
  return undefined;
}

const isIdle = (card: CardState) =>
  !card.wholeNvidia && card.instances === 0 && card.usedCompute === 0;

/** Whether one card has room for one card's share of the container. */
function cardFits(card: CardState, container: ContainerDemand, memoryMiBPerCard: number): boolean {
  if (container.wholeCards) return isIdle(card);
  if (card.wholeNvidia) return false;
  if (card.instances >= MAX_INSTANCES_PER_CARD) return false;
  if (card.usedCompute + container.perCardCompute > 100 + EPSILON) return false;
  const memory = container.perCardMemoryMiB ?? memoryMiBPerCard;
  return card.usedMemoryMiB + memory <= memoryMiBPerCard;
}

function takeCard(
  card: CardState,
  container: ContainerDemand,
  memoryMiBPerCard: number,
  sign: 1 | -1,
) {
  if (container.type === 'nvidia') {
    card.wholeNvidia = sign === 1;
    card.usedCompute += sign * 100;
    card.usedMemoryMiB += sign * memoryMiBPerCard;
    return;
  }
  card.usedCompute += sign * container.perCardCompute;
  card.usedMemoryMiB += sign * (container.perCardMemoryMiB ?? memoryMiBPerCard);
  card.instances += sign;
}

/**
 * Card score of the public scheduler: mean over the node's cards of the squared used ratio,
 * core weighted 20 and memory 80. With the pod's total fixed, binpack's higher sum of squares
 * means fuller cards (and fuller nodes); spread takes the complement.
 */
function scoreCards(
  cards: readonly CardState[],
  memoryMiBPerCard: number,
  policy: CardPolicy,
): number {
  if (cards.length === 0) return 0;
  let core = 0;
  let memory = 0;
  for (const card of cards) {
    const coreRatio = card.usedCompute / 100;
    const memoryRatio = memoryMiBPerCard > 0 ? card.usedMemoryMiB / memoryMiBPerCard : coreRatio;
    core += coreRatio * coreRatio;
    memory += memoryRatio * memoryRatio;
  }
  core /= cards.length;
  memory /= cards.length;
  const used = (CORE_SCORE_WEIGHT * core + (100 - CORE_SCORE_WEIGHT) * memory) / 100;
  return 100 * (policy === 'binpack' ? used : 1 - used);
}

const cardSignature = (card: CardState) =>
  `${card.wholeNvidia ? 'n' : 'm'}${card.usedCompute}/${card.usedMemoryMiB}/${card.instances}`;

/** Lexicographic order of two assignments (container by container, card by card). */
function compareAssignments(a: readonly number[][], b: readonly number[][]): number {
  for (let i = 0; i < a.length; i++) {
    const left = a[i] ?? [];
    const right = b[i] ?? [];
    for (let j = 0; j < Math.max(left.length, right.length); j++) {
      const diff = (left[j] ?? -1) - (right[j] ?? -1);
      if (diff !== 0) return diff;
    }
  }
  return 0;
}

interface CardChoice {
  cards: number[][];
  score: number;
}

/**
 * The card layer: a depth-first search over the containers, each taking `cards` distinct
 * cards with room. Cards in the same state are interchangeable, so only the lowest-indexed of
 * each such group is tried first (symmetry pruning); the search keeps the best score, ties to
 * the lowest card indexes, and stops after `limit` leaves.
 */
function searchCards(
  node: NodeState,
  containers: readonly ContainerDemand[],
  policy: CardPolicy,
  limit: number,
): CardChoice | undefined {
  // Work on a copy: the node state is shared with other placements.
  const cards = node.cards.map((card) => ({ ...card }));
  const memoryMiBPerCard = node.memoryMiBPerCard;
  const chosen: number[][] = containers.map(() => []);
  let best: CardChoice | undefined;
  let leaves = 0;

  const visit = (containerIndex: number): void => {
    if (leaves >= limit) return;
    const container = containers[containerIndex];
    if (container === undefined) {
      leaves += 1;
      const score = scoreCards(cards, memoryMiBPerCard, policy);
      const current = chosen.map((list) => [...list].sort((a, b) => a - b));
      if (
        best === undefined ||
        score > best.score + EPSILON ||
        (Math.abs(score - best.score) <= EPSILON && compareAssignments(current, best.cards) < 0)
      ) {
        best = { cards: current, score };
      }
      return;
    }
    const candidates = cards
      .filter((card) => cardFits(card, container, memoryMiBPerCard))
      .map((card) => ({ card, signature: cardSignature(card) }))
      .sort((a, b) =>
        a.signature < b.signature
          ? -1
          : a.signature > b.signature
            ? 1
            : a.card.index - b.card.index,
      );
    if (candidates.length < container.cards) return;
    const picked = chosen[containerIndex] ?? [];
    const choose = (from: number, remaining: number): void => {
      if (leaves >= limit) return;
      if (remaining === 0) {
        visit(containerIndex + 1);
        return;
      }
      for (let i = from; i <= candidates.length - remaining; i++) {
        const candidate = candidates[i];
        if (candidate === undefined) break;
        // Symmetry: skipping a card and then taking its identical twin gives the same state.
        const previous = candidates[i - 1];
        if (i > from && previous !== undefined && previous.signature === candidate.signature)
          continue;
        takeCard(candidate.card, container, memoryMiBPerCard, 1);
        picked.push(candidate.card.index);
        choose(i + 1, remaining - 1);
        picked.pop();
        takeCard(candidate.card, container, memoryMiBPerCard, -1);
      }
    };
    choose(0, container.cards);
  };
  visit(0);
  return best;
}

/** Why the card search found nothing although the free totals allowed it. */
function diagnoseCards(node: NodeState, containers: readonly ContainerDemand[]): NodeVerdict {
  for (const container of containers) {
    const free = node.cards.filter((card) => !card.wholeNvidia);
    if (container.wholeCards) {
      if (free.filter(isIdle).length < container.cards) {
        return {
          reason: 'idle-cards',
          message: `${container.name} needs ${describeContainer(container)}`,
        };
      }
      continue;
    }
    const withCompute = free.filter(
      (card) => card.usedCompute + container.perCardCompute <= 100 + EPSILON,
    );
    const memory = container.perCardMemoryMiB ?? node.memoryMiBPerCard;
    const withMemory = free.filter((card) => card.usedMemoryMiB + memory <= node.memoryMiBPerCard);
    const withSlots = free.filter((card) => card.instances < MAX_INSTANCES_PER_CARD);
    const needs = `${container.name} needs ${describeContainer(container)}`;
    if (withCompute.length < container.cards) {
      return {
        reason: 'compute',
        message: `${needs}: too few cards with ${percent(container.perCardCompute)} compute free`,
      };
    }
    if (withMemory.length < container.cards) {
      return { reason: 'memory', message: `${needs}: too few cards with ${memory} MiB free` };
    }
    if (withSlots.length < container.cards) {
      return {
        reason: 'instance-limit',
        message: `${needs}: too few cards under ${MAX_INSTANCES_PER_CARD} mGPU instances`,
      };
    }
  }
  return {
    reason: 'fragmented',
    message: 'free compute and memory are fragmented: no set of cards fits every container at once',
  };
}

/** Non-GPU pods: prefer nodes without GPUs, then the emptiest node (spread). */
function scorePlainNode(node: NodeState): number {
  const room = node.maxPods > 0 ? 1 - node.pods / node.maxPods : 0;
  return (node.resourceType === undefined ? 50 : 0) + 50 * room;
}

interface NodeOutcome {
  verdict: NodeVerdict | undefined;
  choice: CardChoice | undefined;
  score: number;
}

function judgeNode(
  node: NodeState,
  demand: PodDemand,
  podPolicy: string,
  modelLabel: string,
  cardPolicy: CardPolicy,
  limit: number,
): NodeOutcome {
  const verdict = checkNode(node, demand, podPolicy, modelLabel);
  if (verdict !== undefined) return { verdict, choice: undefined, score: 0 };
  if (demand.containers.length === 0)
    return { verdict, choice: undefined, score: scorePlainNode(node) };
  const choice = searchCards(node, demand.containers, cardPolicy, limit);
  if (choice === undefined) {
    return { verdict: diagnoseCards(node, demand.containers), choice: undefined, score: 0 };
  }
  return { verdict: undefined, choice, score: choice.score };
}

/**
 * Per-node memo of outcomes by demand: a scheduler places many identical replicas and each
 * placement changes one node, so the other nodes' card searches are reused while their
 * `version` stands. A few demands per node are kept.
 */
const outcomeCache = new WeakMap<
  NodeState,
  { version: number; outcomes: Map<string, NodeOutcome> }
>();
const OUTCOMES_PER_NODE = 4;

function demandSignature(
  demand: PodDemand,
  cardPolicy: CardPolicy,
  modelLabel: string,
  limit: number,
): string {
  return JSON.stringify([
    demand.containers,
    demand.policy,
    demand.model ?? null,
    demand.nodeSelector ?? null,
    demand.nodeSelectorTerms ?? null,
    cardPolicy,
    modelLabel,
    limit,
  ]);
}

function cachedOutcome(node: NodeState, signature: string): NodeOutcome | undefined {
  const entry = outcomeCache.get(node);
  if (entry === undefined || entry.version !== node.version) return undefined;
  return entry.outcomes.get(signature);
}

function rememberOutcome(node: NodeState, signature: string, outcome: NodeOutcome): void {
  let entry = outcomeCache.get(node);
  if (entry === undefined || entry.version !== node.version) {
    entry = { version: node.version, outcomes: new Map() };
    outcomeCache.set(node, entry);
  }
  if (entry.outcomes.size >= OUTCOMES_PER_NODE) {
    const oldest = entry.outcomes.keys().next().value;
    if (oldest !== undefined) entry.outcomes.delete(oldest);
  }
  entry.outcomes.set(signature, outcome);
}

/**
 * Two-layer placement (spec §5): the node layer filters by resource type, compute policy, GPU
 * model, node affinity and free totals; the card layer searches the node's cards. The best
 * score wins, ties to the node name. Pure: the node states are not changed.
 */
export function placePod(
  demand: PodDemand,
  nodes: readonly NodeState[],
  options: PlacementOptions = {},
): PlacementResult {
  const cardPolicy = options.cardPolicy ?? 'binpack';
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const limit = options.searchLimit ?? DEFAULT_SEARCH_LIMIT;
  const allNodes = nodes.map((node) => node.name);

  if (demand.invalidRules !== undefined && demand.invalidRules.length > 0) {
    return {
      ok: false,
      totalNodes: nodes.length,
      rejections: [
        {
          group: 'pod',
          nodes: allNodes,
          reason: 'invalid',
          message: `the pod's GPU request breaks ${demand.invalidRules.join(', ')}`,
        },
      ],
    };
  }
  const podPolicy = demand.policy;
  const multiCard = demand.containers.filter((container) => container.multiCard);
  // `multi-card-policy`: multi-card sharing needs native-burst-share on the pod.
  if (multiCard.length > 0 && podPolicy !== NATIVE_BURST_SHARE) {
    return {
      ok: false,
      totalNodes: nodes.length,
      rejections: [
        {
          group: 'pod',
          nodes: allNodes,
          reason: 'policy',
          message: `multi-card sharing needs pod policy ${NATIVE_BURST_SHARE}, pod has ${podPolicy}`,
        },
      ],
    };
  }

  let best: { node: NodeState; choice: CardChoice | undefined; score: number } | undefined;
  const rejected = new Map<string, Rejection>();
  const signature = demandSignature(demand, cardPolicy, modelLabel, limit);
  for (const node of nodes) {
    let outcome = cachedOutcome(node, signature);
    if (outcome === undefined) {
      outcome = judgeNode(node, demand, podPolicy, modelLabel, cardPolicy, limit);
      rememberOutcome(node, signature, outcome);
    }
    const { verdict, choice, score } = outcome;
    if (verdict !== undefined) {
      const key = `${node.group}\u0000${verdict.reason}\u0000${verdict.message}`;
      const existing = rejected.get(key);
      if (existing) existing.nodes.push(node.name);
      else rejected.set(key, { group: node.group, nodes: [node.name], ...verdict });
      continue;
    }
    if (
      best === undefined ||
      score > best.score + EPSILON ||
      (Math.abs(score - best.score) <= EPSILON && node.name < best.node.name)
    ) {
      best = { node, choice, score };
    }
  }

  if (best === undefined) {
    const rejections = [...rejected.values()].sort(
      (a, b) =>
        b.nodes.length - a.nodes.length ||
        a.group.localeCompare(b.group) ||
        a.reason.localeCompare(b.reason),
    );
    return { ok: false, totalNodes: nodes.length, rejections };
  }
  const cards: CardAssignment = {};
  demand.containers.forEach((container, index) => {
    cards[container.name] = best?.choice?.cards[index] ?? [];
  });
  return { ok: true, node: best.node.name, cards, score: best.score };
}

/**
 * The scheduler's explanation, in the manner of kube-scheduler: "0/12 nodes are available:
 * 4 NVIDIA-L20/fixed-share: policy fixed-share does not match native-burst-share; …".
 */
export function describeRejections(result: {
  rejections: readonly Rejection[];
  totalNodes: number;
}): string {
  // A rejection of the pod itself (its own request or policy) needs no node count.
  const parts = result.rejections.map((rejection) =>
    rejection.group === 'pod'
      ? rejection.message
      : `${rejection.nodes.length} ${rejection.group}: ${rejection.message}`,
  );
  return `0/${result.totalNodes} nodes are available: ${parts.join('; ')}.`;
}

/** Formats card indexes for `gpu-index-container-<name>` ("1,0"). */
export function formatCardIndexes(cards: readonly number[]): string {
  return cards.join(',');
}
