/**
 * Card score of the public scheduler: mean over the node's cards of the squared used ratio,
 * core weighted 20 and memory 80. With the pod's total fixed, binpack's higher sum of squares
 * means fuller cards (and fuller nodes); spread takes the complement.
 */
import type { CardPolicy, CardState, NodeState } from './types.js';

/** Weight of the core term in the card score (public scheduler default; memory gets the rest). */
export const CORE_SCORE_WEIGHT = 20;
/** Scores closer than this are a tie, broken by card index or node name. */
export const EPSILON = 1e-9;

/** One card's share of the score: the weighted squared used ratio (0–1). */
export function cardTerm(
  usedCompute: number,
  usedMemoryMiB: number,
  memoryMiBPerCard: number,
): number {
  const coreRatio = usedCompute / 100;
  const memoryRatio = memoryMiBPerCard > 0 ? usedMemoryMiB / memoryMiBPerCard : coreRatio;
  return (
    (CORE_SCORE_WEIGHT * coreRatio * coreRatio +
      (100 - CORE_SCORE_WEIGHT) * memoryRatio * memoryRatio) /
    100
  );
}

/** The node's score for its cards as they stand: the mean card term, flipped for spread. */
export function scoreCards(
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

/** Non-GPU pods: prefer nodes without GPUs, then the emptiest node (spread). */
export function scorePlainNode(node: NodeState): number {
  const room = node.maxPods > 0 ? 1 - node.pods / node.maxPods : 0;
  return (node.resourceType === undefined ? 50 : 0) + 50 * room;
}
