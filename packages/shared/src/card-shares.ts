/**
 * Per-card arithmetic of a GPU container: what each of its cards gets, and the exact-decimal
 * suggestions the rules offer (computes that split evenly, whole GiB that give integer MiB).
 */
import { Big, formatDecimal } from './decimal.js';
import type { CardClaim, GpuClaim } from './ledger/claim.js';
import { MAX_CARDS } from './request.js';
import { PER_CARD_MEMORY_MAX_MIB } from './rules.js';

/** The per-card derivation of one GPU container whose own fields are valid. */
export interface ContainerShare extends GpuClaim {
  /** Index of the container in the request. */
  index: number;
  name: string;
  multiCard: boolean;
  /** Every card gets 100 % and all its memory. */
  wholeCards: boolean;
  cards: number;
  /** The ledger's claim on each card (the check result's `perCard`). */
  perCard: CardClaim;
  /** The container's `vke.volcengine.com/mgpu-core` (c × 100); cards × 100 for nvidia. */
  computePercent: number;
  /** The container's `vke.volcengine.com/mgpu-memory`, total over all cards; null for whole cards. */
  memoryMiB: number | null;
  /** GPU model asked for, or undefined for any model. */
  model?: string;
}

/** The integer card count typed into `GPU 卡数`, or undefined when it is not 1–8. */
export function parseCards(value: number | string | undefined): number | undefined {
  const cards =
    typeof value === 'string' ? (/^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN) : value;
  return cards !== undefined && Number.isInteger(cards) && cards >= 1 && cards <= MAX_CARDS
    ? cards
    : undefined;
}

/** A compute in percent of one card that `compute-format` accepts (0.01–1 by 0.01, above by 0.1). */
export function isValidComputePercent(percent: number): boolean {
  return percent >= 1 && (percent <= 100 || percent % 10 === 0);
}

export const percentText = (computePercent: number, cards: number) =>
  computePercent % cards === 0
    ? String(computePercent / cards)
    : `${formatDecimal(new Big(computePercent).div(cards), 2)}…`;

export const cardsText = (percent: number) => formatDecimal(new Big(percent).div(100));

/** Card counts 1–8 that split `computePercent` into whole percents of at most one card each. */
export function cardCountsThatSplit(computePercent: number): number[] {
  const counts: number[] = [];
  for (let cards = 1; cards <= MAX_CARDS; cards++) {
    if (computePercent % cards === 0 && computePercent / cards <= 100) counts.push(cards);
  }
  return counts;
}

/** The nearest computes below and above `percent` that split evenly over `cards`. */
export function nearestSplittableComputes(percent: number, cards: number): string[] {
  const fits = (p: number) => isValidComputePercent(p) && p % cards === 0 && p <= 100 * cards;
  const suggestions: string[] = [];
  for (let p = Math.min(percent - 1, 100 * cards); p >= 1; p--) {
    if (fits(p)) {
      suggestions.push(cardsText(p));
      break;
    }
  }
  for (let p = percent + 1; p <= 100 * cards; p++) {
    if (fits(p)) {
      suggestions.push(cardsText(p));
      break;
    }
  }
  return suggestions;
}

/** Whole GiB amounts nearest to `memory` that give every one of `cards` an integer MiB in range. */
export function nearestWholeGiB(memory: Big, cards: number): string[] {
  const fits = (gib: number) =>
    (gib * 1024) % cards === 0 && gib >= cards && gib <= (PER_CARD_MEMORY_MAX_MIB / 1024) * cards;
  // Only amounts inside the per-card range can be suggested, which bounds both searches.
  const highest = (PER_CARD_MEMORY_MAX_MIB / 1024) * cards;
  const floor = memory.gt(highest) ? highest + 1 : memory.round(0, Big.roundDown).toNumber();
  const suggestions: string[] = [];
  for (let gib = Math.min(memory.eq(floor) ? floor - 1 : floor, highest); gib >= cards; gib--) {
    if (fits(gib)) {
      suggestions.push(String(gib));
      break;
    }
  }
  for (let gib = Math.max(floor + 1, cards); gib <= highest; gib++) {
    if (fits(gib)) {
      suggestions.push(String(gib));
      break;
    }
  }
  return suggestions;
}

/** The most whole GiB that `cards` cards of `perCardMiB` hold, split into integer MiB per card. */
export function largestWholeGiB(perCardMiB: number, cards: number): number {
  let gib = Math.floor((perCardMiB * cards) / 1024);
  while (gib > 0 && (gib * 1024) % cards !== 0) gib--;
  return gib;
}
