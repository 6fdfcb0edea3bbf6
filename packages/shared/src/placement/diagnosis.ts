/**
 * Why nodes would not take a pod, in words: the node layer's check explained, or the card
 * layer's failure diagnosed, grouped for the scheduler's Events and the preview.
 */
import {
  claimMemoryMiB,
  computeFitsOn,
  freeComputeOn,
  freeMemoryOn,
  hasInstanceSlot,
  isIdleCard,
  memoryFitsOn,
} from '../ledger/book.js';
import { MAX_INSTANCES_PER_CARD } from '../vke.js';
import { checkNode, type PodFacts } from './node-filter.js';
import { type RejectionParams, type RejectionParamsOf, roundPercent } from './rejections.js';
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

/** The `n`-th largest value (1-based), 0 when there are fewer. */
const nthLargest = (values: number[], n: number) => values.sort((a, b) => b - a)[n - 1] ?? 0;

/**
 * A shortfall in numbers (issue 27: "needs 320 %, 240 % free on the best node"): what the best
 * node of the group has free beside what the pod needs — in total for a node-level code, per card
 * on the pod's card count for a container's. The figure is added after grouping, so nodes that
 * fail alike stay one line, and to the parameters only (`rejectionLine` words it), never to the
 * message the scheduler writes into the pod.
 */
function withBestFree(rejection: Rejection, byName: ReadonlyMap<string, NodeState>): void {
  const nodes = rejection.nodes.flatMap((name) => byName.get(name) ?? []);
  if (nodes.length === 0) return;
  const best = (read: (node: NodeState) => number) =>
    nodes.reduce((max, node) => Math.max(max, read(node)), 0);
  const cards = rejection.params.cards ?? 1;
  let extra: RejectionParams | undefined;
  switch (rejection.code) {
    case 'compute':
      extra = { freeComputePercent: roundPercent(best((node) => node.freeCompute)) };
      break;
    case 'memory':
      extra = { freeMemoryMiB: best((node) => node.freeMemoryMiB) };
      break;
    case 'container-compute':
      extra = {
        freeComputePercent: roundPercent(
          best((node) => nthLargest(node.cards.map(freeComputeOn), cards)),
        ),
      };
      break;
    case 'container-memory':
      extra = {
        freeMemoryMiB: best((node) =>
          nthLargest(
            node.cards.map((card) => freeMemoryOn(card, node.memoryMiBPerCard)),
            cards,
          ),
        ),
      };
      break;
  }
  if (extra === undefined) return;
  // Only in the parameters: those are cut for an operator who may not see nodes, while the
  // English message goes to the pod's condition and Events, which every pod reader sees.
  rejection.params = { ...rejection.params, ...extra };
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
  const byName = new Map(nodes.map((node) => [node.name, node]));
  for (const rejection of rejected.values()) withBestFree(rejection, byName);
  return [...rejected.values()].sort(
    (a, b) =>
      b.nodes.length - a.nodes.length ||
      a.group.localeCompare(b.group) ||
      a.reason.localeCompare(b.reason),
  );
}
