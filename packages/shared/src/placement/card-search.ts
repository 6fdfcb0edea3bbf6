/**
 * The card layer of placement (spec §5): which distinct cards with room each GPU container of
 * a pod takes on one node, and the score of that choice.
 */
import { bookOnCard, computeAfterBooking, fitsOnCard, memoryAfterBooking } from '../ledger/book.js';
import { cardTerm, EPSILON, scoreCards } from './score.js';
import type { CardPolicy, CardState, ContainerDemand, NodeState } from './types.js';

/** Card indexes per container (in the pod's order) and the node's score with them booked. */
export interface CardChoice {
  cards: number[][];
  score: number;
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

/**
 * The card layer: a depth-first search over the containers, each taking `cards` distinct
 * cards with room. Cards in the same state are interchangeable, so only the lowest-indexed of
 * each such group is tried first (symmetry pruning); the search keeps the best score, ties to
 * the lowest card indexes, and stops after `limit` leaves.
 */
export function searchCards(
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
