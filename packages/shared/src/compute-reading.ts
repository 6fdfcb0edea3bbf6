/**
 * `compute-format` (spec §3): reading the typed compute, and the nearest values to suggest
 * instead that every rule of the field accepts on the container's cards.
 */
import { nearestSplittableComputes } from './card-shares.js';
import { Big, decimalPlaces, formatDecimal, parseDecimal, quoteTyped } from './decimal.js';
import { type GpuRequest, MAX_CARDS } from './request.js';
import type { RuleParams, Violation } from './rules.js';

/** Computes above this many cards are refused outright (see `readCompute`). */
const MAX_COMPUTE_CARDS = 1000;

type ComputeReading =
  | { ok: true; percent: number }
  | { ok: false; violation: Extract<Violation, { rule: 'compute-format' }> };

/** `compute-format`: 0.01 ≤ c ≤ 1 with at most two decimals, or c > 1 with at most one. */
export function readCompute(text: string, container: string, path: string): ComputeReading {
  const fail = (
    problem: RuleParams['compute-format']['problem'],
    suggestions: string[] = [],
  ): ComputeReading => ({
    ok: false,
    violation: {
      rule: 'compute-format',
      path,
      params: { container, value: quoteTyped(text), problem, suggestions },
    },
  });
  if (text.trim() === '') return fail('empty');
  const value = parseDecimal(text);
  if (value === null) {
    const commaDecimal = /^\s*(\d+),(\d+)\s*$/.exec(text);
    const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
    const guess = commaDecimal
      ? `${commaDecimal[1]}.${commaDecimal[2]}`
      : percent?.[1]
        ? formatDecimal(new Big(percent[1]).div(100))
        : undefined;
    return fail('not-a-number', guess ? [guess] : []);
  }
  if (value.lt('0.01')) return fail('below-minimum', ['0.01']);
  // A magnitude guard, not a rule of §3: far beyond any node (the per-card and cluster rules
  // judge realistic values), and it keeps every percent below an exact integer bound.
  if (value.gt(MAX_COMPUTE_CARDS)) return fail('above-maximum', [String(MAX_CARDS)]);
  const places = decimalPlaces(value);
  if (value.lte(1) && places > 2) {
    const down = value.round(2, Big.roundDown);
    const up = value.round(2, Big.roundUp);
    return fail(
      'slice-decimals',
      [down, up].filter((v) => v.gte('0.01')).map((v) => formatDecimal(v)),
    );
  }
  if (value.gt(1) && places > 1) {
    const down = value.round(1, Big.roundDown);
    const up = value.round(1, Big.roundUp);
    return fail('above-one-decimals', [...new Set([formatDecimal(down), formatDecimal(up)])]);
  }
  return { ok: true, percent: value.times(100).toNumber() };
}

/**
 * The computes to suggest for a `compute-format` failure: the rounded ones the field accepts,
 * else, on several cards, the nearest below and above that split evenly over them, else, on one
 * card above 1, the nearest whole cards. `accepts` runs every rule of the field on a value.
 */
export function workingComputes(
  rounded: readonly string[],
  gpu: GpuRequest,
  cards: number | undefined,
  accepts: (compute: string) => boolean,
): string[] {
  const suggestions = rounded.filter(accepts);
  const typed = parseDecimal(gpu.compute ?? '');
  if (suggestions.length > 0 || typed === null || typed.lte(0)) return suggestions;
  const offer = (value: Big | undefined) => {
    const text = value === undefined ? undefined : formatDecimal(value);
    if (text !== undefined && !suggestions.includes(text) && accepts(text)) suggestions.push(text);
  };
  if (gpu.multiCard && cards !== undefined) {
    const percent = typed.times(100);
    const near = [Big.roundDown, Big.roundUp]
      .flatMap((mode) => nearestSplittableComputes(percent.round(0, mode).toNumber(), cards))
      .map((value) => new Big(value))
      .sort((a, b) => a.cmp(b));
    offer(near.filter((value) => value.times(100).lt(percent)).pop());
    offer(near.find((value) => value.times(100).gt(percent)));
  } else if (!gpu.multiCard && typed.gt(1)) {
    for (const mode of [Big.roundDown, Big.roundUp]) {
      const whole = typed.round(0, mode);
      if (whole.lte(MAX_CARDS)) offer(whole);
    }
  }
  return suggestions;
}
