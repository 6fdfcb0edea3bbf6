/**
 * The node layer of placement (spec §5): every check that needs no card search — resource
 * type, compute policy, GPU model, node affinity, pod count and the free totals.
 */
import { MAX_INSTANCES_PER_CARD } from '../vke.js';
import { roundPercent } from './rejections.js';
import type {
  ContainerDemand,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  NodeState,
  PodDemand,
} from './types.js';
import { modelVerdict, type NodeVerdict, UNEXPLAINED, verdict } from './verdict.js';

export const NATIVE_BURST_SHARE = 'native-burst-share';

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

/** What the node layer needs of a pod, computed once per `placePod` rather than per node. */
export interface PodFacts {
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

export function podFacts(demand: PodDemand): PodFacts {
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
export function checkNode(
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
