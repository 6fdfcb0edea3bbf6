import {
  bookOnCard,
  claimMemoryMiB,
  computeAfterBooking,
  computeFitsOn,
  fitsOnCard,
  hasInstanceSlot,
  isIdleCard,
  memoryAfterBooking,
  memoryFitsOn,
} from '../ledger/book.js';
import { MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import {
  REJECTION_REASON,
  type RejectionCode,
  type RejectionParams,
  type RejectionParamsOf,
  rejectionMessage,
  roundPercent,
} from './rejections.js';
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
} from './types.js';

const NATIVE_BURST_SHARE = 'native-burst-share';
/** Weight of the core term in the card score (public scheduler default; memory gets the rest). */
export const CORE_SCORE_WEIGHT = 20;
const DEFAULT_SEARCH_LIMIT = 4096;
const EPSILON = 1e-9;

type NodeVerdict = Omit<Rejection, 'group' | 'nodes'>;

/**
 * A verdict with its code, parameters (exactly those its messages need) and English words;
 * built only when explaining.
 */
function verdict<Code extends RejectionCode>(
  code: Code,
  ...[params]: keyof RejectionParamsOf<Code> extends never ? [] : [RejectionParamsOf<Code>]
): NodeVerdict {
  // Typed per code above; the carried parameters are the wire's one shape for every code.
  const given: RejectionParams = params ?? {};
  return {
    reason: REJECTION_REASON[code],
    code,
    params: given,
    message: rejectionMessage<RejectionCode>(code, given),
  };
}

/** The fast pass only needs to know that a node is out; words come in a second pass. */
const UNEXPLAINED: NodeVerdict = {
  reason: 'invalid',
  code: 'pod-invalid',
  params: {},
  message: '',
};

const isFractional = (container: ContainerDemand) =>
  container.type === 'mgpu' && !container.wholeCards;

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
  explain: boolean,
): NodeVerdict | undefined {
  for (const [key, value] of Object.entries(demand.nodeSelector ?? {})) {
    if (node.labels[key] !== value) {
      if (!explain) return UNEXPLAINED;
      return key === modelLabel
        ? modelVerdict(node, value)
        : verdict('node-selector', { key, value });
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
  if (!explain) return UNEXPLAINED;
  if (firstFailure?.key === modelLabel) {
    return modelVerdict(node, (firstFailure.values ?? []).join(', '));
  }
  return verdict('node-affinity');
}

function modelVerdict(node: NodeState, model: string): NodeVerdict {
  return node.model === undefined
    ? verdict('model-missing', { model })
    : verdict('model', { nodeModel: node.model, model });
}

/** What the node layer needs of a pod, computed once per `placePod` rather than per node. */
interface PodFacts {
  types: string[];
  multiCard: boolean;
  fractional: boolean;
  maxCards: number;
  widest: ContainerDemand | undefined;
  compute: number;
  memory: number;
  wholeCards: number;
  instances: number;
}

function podFacts(demand: PodDemand): PodFacts {
  const facts: PodFacts = {
    types: [...new Set(demand.containers.map((container) => container.type))],
    multiCard: demand.containers.some((container) => container.multiCard),
    fractional: demand.containers.some(isFractional),
    maxCards: 0,
    widest: undefined,
    compute: 0,
    memory: 0,
    wholeCards: 0,
    instances: 0,
  };
  for (const container of demand.containers) {
    if (container.cards > facts.maxCards) {
      facts.maxCards = container.cards;
      facts.widest = container;
    }
    if (container.wholeCards) {
      facts.wholeCards += container.cards;
    } else {
      facts.compute += container.perCard.computePercent * container.cards;
      facts.memory += (container.perCard.memoryMiB ?? 0) * container.cards;
    }
    if (container.type === 'mgpu') facts.instances += container.cards;
  }
  return facts;
}

/** The node layer: every check that needs no card search, cheapest first. */
function checkNode(
  node: NodeState,
  demand: PodDemand,
  facts: PodFacts,
  podPolicy: string,
  modelLabel: string,
  explain: boolean,
): NodeVerdict | undefined {
  if (!node.schedulable) return explain ? verdict('unschedulable') : UNEXPLAINED;
  const gpu = demand.containers.length > 0;
  if (gpu) {
    if (node.resourceType === undefined) {
      return explain ? verdict('no-gpus', { podTypes: facts.types.join('+') }) : UNEXPLAINED;
    }
    if (facts.types.some((type) => type !== node.resourceType)) {
      return explain
        ? verdict('resource-type', {
            nodeType: node.resourceType,
            podTypes: facts.types.join('+'),
          })
        : UNEXPLAINED;
    }
    // Multi-card sharing needs native-burst-share on the node too (spec §2); fractional pods
    // go only to pools of their own policy; whole-card pods skip the match (spec §5).
    if (facts.multiCard && node.policy !== NATIVE_BURST_SHARE) {
      return explain ? verdict('policy-multi-card', { nodePolicy: node.policy }) : UNEXPLAINED;
    }
    if (facts.fractional && node.policy !== podPolicy && node.resourceType === 'mgpu') {
      return explain ? verdict('policy', { nodePolicy: node.policy, podPolicy }) : UNEXPLAINED;
    }
  }
  if (demand.model !== undefined && node.model !== demand.model) {
    return explain ? modelVerdict(node, demand.model) : UNEXPLAINED;
  }
  const selectors = checkSelectors(node, demand, modelLabel, explain);
  if (selectors) return selectors;
  if (node.pods >= node.maxPods)
    return explain ? verdict('pods', { maxPods: node.maxPods }) : UNEXPLAINED;
  if (!gpu) return undefined;

  // Pruning on the precomputed free totals: these hold for any card choice.
  if (facts.widest !== undefined && facts.maxCards > node.cards.length) {
    return explain
      ? verdict('cards', {
          container: facts.widest.name,
          cards: facts.maxCards,
          nodeCards: node.cards.length,
        })
      : UNEXPLAINED;
  }
  if (facts.wholeCards > node.idleCards) {
    return explain ? verdict('idle-cards', { cards: facts.wholeCards }) : UNEXPLAINED;
  }
  if (facts.compute + facts.wholeCards * 100 > node.freeCompute) {
    return explain
      ? verdict('compute', { computePercent: roundPercent(facts.compute) })
      : UNEXPLAINED;
  }
  if (facts.memory + facts.wholeCards * node.memoryMiBPerCard > node.freeMemoryMiB) {
    return explain ? verdict('memory', { memoryMiB: facts.memory }) : UNEXPLAINED;
  }
  if (facts.instances > node.freeInstanceSlots) {
    return explain
      ? verdict('instance-limit', {
          instances: facts.instances,
          instancesPerCard: MAX_INSTANCES_PER_CARD,
        })
      : UNEXPLAINED;
  }
  return undefined;
}

/**
 * Card score of the public scheduler: mean over the node's cards of the squared used ratio,
 * core weighted 20 and memory 80. With the pod's total fixed, binpack's higher sum of squares
 * means fuller cards (and fuller nodes); spread takes the complement.
 */
/** One card's share of the score: the weighted squared used ratio (0–1). */
function cardTerm(usedCompute: number, usedMemoryMiB: number, memoryMiBPerCard: number): number {
  const coreRatio = usedCompute / 100;
  const memoryRatio = memoryMiBPerCard > 0 ? usedMemoryMiB / memoryMiBPerCard : coreRatio;
  return (
    (CORE_SCORE_WEIGHT * coreRatio * coreRatio +
      (100 - CORE_SCORE_WEIGHT) * memoryRatio * memoryRatio) /
    100
  );
}

function scoreCards(
  cards: readonly CardState[],
  memoryMiBPerCard: number,
  policy: CardPolicy,
): number {
  if (cards.length === 0) return 0;
  let used = 0;
  for (const card of cards)
    used += cardTerm(card.usedCompute, card.usedMemoryMiB, memoryMiBPerCard);
  used /= cards.length;
  return 100 * (policy === 'binpack' ? used : 1 - used);
}

/**
 * One container (most pods): the score is a sum of independent per-card terms, so the best
 * cards are simply the fitting ones whose term grows most (binpack) or least (spread), ties
 * to the lower index. No search needed.
 */
function chooseCardsForOne(
  node: NodeState,
  container: ContainerDemand,
  policy: CardPolicy,
): CardChoice | undefined {
  const memoryMiBPerCard = node.memoryMiBPerCard;
  const size = node.cards.length;
  // Scratch space reused across nodes: this runs for every node of every placement.
  if (scratchGain.length < size) {
    scratchGain = new Float64Array(size);
    scratchIndex = new Int32Array(size);
  }
  const binpack = policy === 'binpack';
  let count = 0;
  let base = 0;
  for (const card of node.cards) {
    const before = cardTerm(card.usedCompute, card.usedMemoryMiB, memoryMiBPerCard);
    base += before;
    if (!fitsOnCard(card, container, memoryMiBPerCard)) continue;
    const after = cardTerm(
      computeAfterBooking(card, container),
      memoryAfterBooking(card, container, memoryMiBPerCard),
      memoryMiBPerCard,
    );
    const gain = binpack ? after - before : before - after;
    // Insertion by gain (descending), ties to the lower index; cards come in index order.
    let at = count;
    while (at > 0 && gain > (scratchGain[at - 1] ?? 0) + EPSILON) {
      scratchGain[at] = scratchGain[at - 1] ?? 0;
      scratchIndex[at] = scratchIndex[at - 1] ?? 0;
      at -= 1;
    }
    scratchGain[at] = gain;
    scratchIndex[at] = card.index;
    count += 1;
  }
  if (count < container.cards) return undefined;
  const chosen: number[] = [];
  let used = base;
  for (let i = 0; i < container.cards; i++) {
    chosen.push(scratchIndex[i] ?? 0);
    used += binpack ? (scratchGain[i] ?? 0) : -(scratchGain[i] ?? 0);
  }
  chosen.sort((a, b) => a - b);
  used /= size;
  return { cards: [chosen], score: 100 * (binpack ? used : 1 - used) };
}

let scratchGain = new Float64Array(16);
let scratchIndex = new Int32Array(16);

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
  const only = containers[0];
  if (containers.length === 1 && only !== undefined) return chooseCardsForOne(node, only, policy);
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
      .filter((card) => fitsOnCard(card, container, memoryMiBPerCard))
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
        bookOnCard(candidate.card, container, memoryMiBPerCard, 1);
        picked.push(candidate.card.index);
        choose(i + 1, remaining - 1);
        picked.pop();
        bookOnCard(candidate.card, container, memoryMiBPerCard, -1);
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
    if (container.wholeCards) {
      if (node.cards.filter(isIdleCard).length < container.cards) {
        return verdict('container-idle-cards', {
          container: container.name,
          cards: container.cards,
        });
      }
      continue;
    }
    const withCompute = node.cards.filter((card) => computeFitsOn(card, container.perCard));
    const memory = claimMemoryMiB(container.perCard, node.memoryMiBPerCard);
    const withMemory = node.cards.filter((card) =>
      memoryFitsOn(card, container.perCard, node.memoryMiBPerCard),
    );
    const withSlots = node.cards.filter(hasInstanceSlot);
    const needs: RejectionParamsOf<'container-compute'> = {
      container: container.name,
      cards: container.cards,
      computePercent: roundPercent(container.perCard.computePercent),
      memoryMiB: memory,
    };
    if (withCompute.length < container.cards) return verdict('container-compute', needs);
    if (withMemory.length < container.cards) return verdict('container-memory', needs);
    if (withSlots.length < container.cards) {
      return verdict('container-instance-limit', {
        ...needs,
        instancesPerCard: MAX_INSTANCES_PER_CARD,
      });
    }
  }
  return verdict('fragmented');
}

/**
 * Why each of these nodes would not take the pod, grouped per node group and failing
 * constraint (words included), largest group first.
 */
function explainRejections(
  nodes: readonly NodeState[],
  demand: PodDemand,
  facts: PodFacts,
  modelLabel: string,
): Rejection[] {
  const rejected = new Map<string, Rejection>();
  for (const node of nodes) {
    const found =
      checkNode(node, demand, facts, demand.policy, modelLabel, true) ??
      diagnoseCards(node, demand.containers);
    const key = `${node.group}\u0000${found.code}\u0000${found.message}`;
    const existing = rejected.get(key);
    if (existing) existing.nodes.push(node.name);
    else rejected.set(key, { group: node.group, nodes: [node.name], ...found });
  }
  return [...rejected.values()].sort(
    (a, b) =>
      b.nodes.length - a.nodes.length ||
      a.group.localeCompare(b.group) ||
      a.reason.localeCompare(b.reason),
  );
}

/** Non-GPU pods: prefer nodes without GPUs, then the emptiest node (spread). */
function scorePlainNode(node: NodeState): number {
  const room = node.maxPods > 0 ? 1 - node.pods / node.maxPods : 0;
  return (node.resourceType === undefined ? 50 : 0) + 50 * room;
}

/**
 * Per-node memo of card-search results by demand: a scheduler places many identical replicas
 * and each placement changes one node, so the other nodes' searches are reused while their
 * `version` stands. Kept on the node state object under a symbol (a WeakMap of 1,000 nodes
 * costs the garbage collector noticeably more). A few demands per node are kept.
 */
interface SearchMemo {
  version: number;
  results: Map<string, CardChoice | null>;
}
const MEMO = Symbol('placePod memo');
type Memoized = NodeState & { [MEMO]?: SearchMemo };
const RESULTS_PER_NODE = 4;

function demandSignature(demand: PodDemand, cardPolicy: CardPolicy, limit: number): string {
  return JSON.stringify([demand.containers, cardPolicy, limit]);
}

/** The card layer for a node that passed the node layer, through the memo. */
function searchMemoized(
  node: Memoized,
  demand: PodDemand,
  signature: string,
  cardPolicy: CardPolicy,
  limit: number,
): CardChoice | null {
  let memo = node[MEMO];
  if (memo !== undefined && memo.version === node.version) {
    const known = memo.results.get(signature);
    if (known !== undefined) return known;
  } else {
    memo = { version: node.version, results: new Map() };
    node[MEMO] = memo;
  }
  const choice = searchCards(node, demand.containers, cardPolicy, limit) ?? null;
  if (memo.results.size >= RESULTS_PER_NODE) {
    const oldest = memo.results.keys().next().value;
    if (oldest !== undefined) memo.results.delete(oldest);
  }
  memo.results.set(signature, choice);
  return choice;
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
  const allNodes = () => nodes.map((node) => node.name);

  if (demand.invalidRules !== undefined && demand.invalidRules.length > 0) {
    return {
      ok: false,
      totalNodes: nodes.length,
      rejections: [
        {
          group: 'pod',
          nodes: allNodes(),
          ...verdict('pod-invalid', { rules: demand.invalidRules.join(', ') }),
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
          nodes: allNodes(),
          ...verdict('pod-policy-multi-card', { podPolicy }),
        },
      ],
    };
  }

  const facts = podFacts(demand);
  const gpu = demand.containers.length > 0;
  const signature = gpu ? demandSignature(demand, cardPolicy, limit) : '';
  // Fast pass: no words, no allocation for nodes that are out (unless asked to explain them).
  const rejectedNodes: NodeState[] | undefined = options.explainRejected ? [] : undefined;
  let fitting = 0;
  let bestNode: NodeState | undefined;
  let bestChoice: CardChoice | null = null;
  let bestScore = 0;
  for (const node of nodes) {
    if (checkNode(node, demand, facts, podPolicy, modelLabel, false) !== undefined) {
      rejectedNodes?.push(node);
      continue;
    }
    let choice: CardChoice | null = null;
    let score: number;
    if (gpu) {
      choice = searchMemoized(node, demand, signature, cardPolicy, limit);
      if (choice === null) {
        rejectedNodes?.push(node);
        continue;
      }
      score = choice.score;
    } else {
      score = scorePlainNode(node);
    }
    fitting += 1;
    if (
      bestNode === undefined ||
      score > bestScore + EPSILON ||
      (Math.abs(score - bestScore) <= EPSILON && node.name < bestNode.name)
    ) {
      bestNode = node;
      bestChoice = choice;
      bestScore = score;
    }
  }

  if (bestNode === undefined) {
    // Nothing fits: say why, per node group and failing constraint.
    return {
      ok: false,
      totalNodes: nodes.length,
      rejections: explainRejections(nodes, demand, facts, modelLabel),
    };
  }
  const cards: CardAssignment = {};
  demand.containers.forEach((container, index) => {
    cards[container.name] = bestChoice?.cards[index] ?? [];
  });
  if (rejectedNodes === undefined)
    return { ok: true, node: bestNode.name, cards, score: bestScore };
  return {
    ok: true,
    node: bestNode.name,
    cards,
    score: bestScore,
    fitting,
    rejections: explainRejections(rejectedNodes, demand, facts, modelLabel),
  };
}

/**
 * The scheduler's explanation, in the manner of kube-scheduler: "0/12 nodes are available:
 * 4 NVIDIA-L20/fixed-share: policy fixed-share does not match native-burst-share; …". Without
 * node lists and a total (an operator who may not list nodes, spec §8) the groups go uncounted:
 * "No node is available: NVIDIA-L20/fixed-share: …".
 */
export function describeRejections(result: {
  rejections: readonly (Pick<Rejection, 'group' | 'message'> & { nodes?: readonly string[] })[];
  totalNodes?: number;
}): string {
  // A rejection of the pod itself (its own request or policy) needs no node count.
  const parts = result.rejections.map((rejection) =>
    rejection.group === 'pod'
      ? rejection.message
      : rejection.nodes === undefined
        ? `${rejection.group}: ${rejection.message}`
        : `${rejection.nodes.length} ${rejection.group}: ${rejection.message}`,
  );
  const head =
    result.totalNodes === undefined
      ? 'No node is available'
      : `0/${result.totalNodes} nodes are available`;
  return `${head}: ${parts.join('; ')}.`;
}

/** Formats card indexes for `gpu-index-container-<name>` ("1,0"). */
export function formatCardIndexes(cards: readonly number[]): string {
  return cards.join(',');
}
