/**
 * What each card would get from a container's GPU fields as typed, also while a rule refuses
 * them: the per-card panel keeps showing the figures and marks the one a rule fails (issue 27:
 * "768 MiB per card", in red, rather than a blank panel). Exact decimals, as the rules use.
 */
import { parseCards } from './card-shares.js';
import { Big, formatDecimal, parseDecimal } from './decimal.js';
import { type GpuRequest, MAX_CARDS } from './request.js';
import type { RuleId } from './rules.js';

/** A per-card figure as text: exact, or rounded to two decimals and marked `…`. */
export interface PerCardFigures {
  cards: number;
  /** Percent of one card's compute per card, or undefined while compute does not read as a number. */
  computePercent?: string;
  /** MiB per card, or undefined while memory is empty or not a number. */
  memoryMiB?: string;
}

/** The figure each rule is about: the panel marks that one. */
export const FIGURE_OF_RULE: Partial<Record<RuleId, 'cards' | 'compute' | 'memory'>> = {
  'cards-range': 'cards',
  'cards-exceed-node': 'cards',
  'compute-format': 'compute',
  'compute-whole-cards': 'compute',
  'per-card-compute-precision': 'compute',
  'per-card-compute-max': 'compute',
  'memory-required': 'memory',
  'memory-with-whole-card': 'memory',
  'per-card-memory-integer': 'memory',
  'per-card-memory-range': 'memory',
  'per-card-memory-exceeds-model': 'memory',
};

const perCard = (total: Big, cards: number) => {
  const exact = total.div(cards);
  const text = formatDecimal(exact, 2);
  return new Big(text).eq(exact) ? text : `${text}…`;
};

/** The per-card figures of an mGPU container's fields as typed; undefined without a card count. */
export function perCardFigures(gpu: GpuRequest): PerCardFigures | undefined {
  const compute = parseDecimal(gpu.compute ?? '');
  let cards: number | undefined = 1;
  if (gpu.multiCard) cards = parseCards(gpu.cards);
  else if (compute?.gt(1) && compute.round(0, Big.roundDown).eq(compute) && compute.lte(MAX_CARDS))
    cards = compute.toNumber();
  if (cards === undefined) return undefined;
  const memory = parseDecimal(gpu.memoryGiB ?? '');
  return {
    cards,
    ...(compute !== null ? { computePercent: perCard(compute.times(100), cards) } : {}),
    ...(memory?.gt(0) ? { memoryMiB: perCard(memory.times(1024), cards) } : {}),
  };
}
