/**
 * Why nodes would not take a pod, in words: the node layer's check explained, or the card
 * layer's failure diagnosed, grouped for the scheduler's Events and the preview.
 */
import {
  claimMemoryMiB,
  computeFitsOn,
  hasInstanceSlot,
  isIdleCard,
  memoryFitsOn,
} from '../ledger/book.js';
import { MAX_INSTANCES_PER_CARD } from '../vke.js';
import { checkNode, type PodFacts } from './node-filter.js';
import { type RejectionParamsOf, roundPercent } from './rejections.js';
import type { ContainerDemand, NodeState, PodDemand, Rejection } from './types.js';
import { type NodeVerdict, verdict } from './verdict.js';

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
export function explainRejections(
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
