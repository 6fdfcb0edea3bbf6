/**
 * Two-layer placement (spec §5), the entry points: `placePod` runs the node layer
 * (`node-filter`), the card layer (`card-search` through `memo`) and, when nothing fits or
 * when asked, the words (`diagnosis`).
 */
import { VKE } from '../vke.js';
import type { CardChoice } from './card-search.js';
import { explainRejections } from './diagnosis.js';
import { demandSignature, searchMemoized } from './memo.js';
import { checkNode, NATIVE_BURST_SHARE, podFacts } from './node-filter.js';
import { EPSILON, scorePlainNode } from './score.js';
import type {
  CardAssignment,
  NodeState,
  PlacementOptions,
  PlacementResult,
  PodDemand,
  Rejection,
} from './types.js';
import { verdict } from './verdict.js';

export { CORE_SCORE_WEIGHT } from './score.js';

const DEFAULT_SEARCH_LIMIT = 4096;

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
