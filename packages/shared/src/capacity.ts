import { freeComputeOn, freeMemoryOn, hasInstanceSlot, isIdleCard } from './ledger/book.js';
import type { CardState, NodeState } from './placement/types.js';
import { MAX_CARDS } from './request.js';
import { PER_CARD_MEMORY_MIN_MIB } from './rules.js';

/**
 * Capacity no request can use right now (issue 8's "stranded"): memory on a card whose 16
 * instance slots are taken, compute on a card with less memory left than the smallest slice
 * (1024 MiB), and memory on a card with no compute left.
 */
export interface StrandedCapacity {
  /** Compute percent free on cards that cannot take another instance or slice. */
  computePercent: number;
  memoryMiB: number;
  /** Cards holding some stranded capacity. */
  cards: number;
}

/** The largest single request each dimension still allows in a pool (each on its own). */
export interface LargestFit {
  /** The most compute (in percent of a card) one container can get, split equally over up to 8 cards of one node. */
  computePercent: number;
  /** The most memory one container can get, split equally over up to 8 cards of one node. */
  memoryMiB: number;
  /** The most whole idle cards on one node. */
  idleCards: number;
  /** The most cards of one node that can each still take an instance with the smallest slice. */
  cards: number;
}

/** What one card strands: everything free when its slots are full, else the unusable half. */
export function strandedOnCard(
  node: NodeState,
  card: CardState,
): { computePercent: number; memoryMiB: number } {
  const compute = freeComputeOn(card);
  const memory = freeMemoryOn(card, node.memoryMiBPerCard);
  if (card.wholeNvidia || (compute === 0 && memory === 0))
    return { computePercent: 0, memoryMiB: 0 };
  if (!hasInstanceSlot(card)) return { computePercent: compute, memoryMiB: memory };
  return {
    computePercent: memory < PER_CARD_MEMORY_MIN_MIB ? compute : 0,
    memoryMiB: compute === 0 ? memory : 0,
  };
}

export function strandedCapacity(nodes: readonly NodeState[]): StrandedCapacity {
  const total: StrandedCapacity = { computePercent: 0, memoryMiB: 0, cards: 0 };
  for (const node of nodes) {
    if (node.resourceType !== 'mgpu') continue;
    for (const card of node.cards) {
      const stranded = strandedOnCard(node, card);
      total.computePercent += stranded.computePercent;
      total.memoryMiB += stranded.memoryMiB;
      if (stranded.computePercent > 0 || stranded.memoryMiB > 0) total.cards++;
    }
  }
  return total;
}

/**
 * The best `k × (k-th largest free value)` over k = 1..8 on one node: equal shares on k distinct
 * cards are limited by the k-th card, which is how multi-card sharing splits a request.
 */
function bestEqualSplit(values: number[]): number {
  const sorted = values.filter((value) => value > 0).sort((a, b) => b - a);
  let best = 0;
  for (let k = 1; k <= Math.min(MAX_CARDS, sorted.length); k++)
    best = Math.max(best, k * (sorted[k - 1] ?? 0));
  return best;
}

/** The largest request each dimension allows in these nodes (one pool) right now. */
export function largestFit(nodes: readonly NodeState[]): LargestFit {
  const fit: LargestFit = { computePercent: 0, memoryMiB: 0, idleCards: 0, cards: 0 };
  for (const node of nodes) {
    if (!node.schedulable) continue;
    const open = node.cards.filter(
      (card) =>
        hasInstanceSlot(card) &&
        freeComputeOn(card) >= 1 &&
        freeMemoryOn(card, node.memoryMiBPerCard) >= PER_CARD_MEMORY_MIN_MIB,
    );
    fit.computePercent = Math.max(fit.computePercent, bestEqualSplit(open.map(freeComputeOn)));
    fit.memoryMiB = Math.max(
      fit.memoryMiB,
      bestEqualSplit(open.map((card) => freeMemoryOn(card, node.memoryMiBPerCard))),
    );
    fit.cards = Math.max(fit.cards, Math.min(MAX_CARDS, open.length));
    const idle = node.cards.filter(isIdleCard);
    fit.idleCards = Math.max(fit.idleCards, idle.length);
  }
  return fit;
}

/** What each of `cards` cards on one node can still give one container, at best (issue 27). */
export interface FitOnCards {
  cards: number;
  /** Per card, in percent of a card. */
  computePercent: number;
  /** Per card. */
  memoryMiB: number;
}

/**
 * The largest request of exactly `cards` cards these nodes (one pool) take now, per card: the
 * `cards`-th freest open card of the best node, each dimension on its own — so a 2-card request
 * reads "80 % and 20 GiB per card on 2 cards", not a total over up to 8 cards.
 */
export function largestFitOnCards(nodes: readonly NodeState[], cards: number): FitOnCards {
  const fit: FitOnCards = { cards, computePercent: 0, memoryMiB: 0 };
  const nth = (values: number[]) => values.sort((a, b) => b - a)[cards - 1] ?? 0;
  for (const node of nodes) {
    if (!node.schedulable || node.resourceType !== 'mgpu') continue;
    const open = node.cards.filter((card) => hasInstanceSlot(card) && !card.wholeNvidia);
    fit.computePercent = Math.max(fit.computePercent, nth(open.map(freeComputeOn)));
    fit.memoryMiB = Math.max(
      fit.memoryMiB,
      nth(open.map((card) => freeMemoryOn(card, node.memoryMiBPerCard))),
    );
  }
  return fit;
}
