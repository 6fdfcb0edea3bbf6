import Big from 'big.js';

/**
 * Exact decimal parsing for the typed GPU fields. Binary floats get 0.29 × 100 wrong, so every
 * rule works on big.js values (or on integers derived from them exactly).
 */
const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/**
 * Longer typed values are not numbers an operator means: refusing them keeps big.js (whose
 * arithmetic grows with the digits) from turning one request into seconds of CPU.
 */
export const MAX_DECIMAL_TEXT = 24;

/** The value of a plain non-negative decimal such as `1.2` or `0.05`; null for anything else. */
export function parseDecimal(text: string): Big | null {
  const trimmed = text.trim();
  return trimmed.length <= MAX_DECIMAL_TEXT && DECIMAL_TEXT.test(trimmed) ? new Big(trimmed) : null;
}

/** A typed value as messages quote it: long ones are cut, so an error never echoes a page of digits. */
export function quoteTyped(text: string): string {
  return text.length > MAX_DECIMAL_TEXT + 8 ? `${text.slice(0, MAX_DECIMAL_TEXT)}…` : text;
}

/** Digits after the point of the value itself (1.20 has one). */
export function decimalPlaces(value: Big): number {
  const fraction = value.toFixed().split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length;
}

export function isInteger(value: Big): boolean {
  return value.mod(1).eq(0);
}

/** Plain notation, never exponential, trailing zeros dropped (`4.00390625`, `1706.67`). */
export function formatDecimal(value: Big, maxPlaces?: number): string {
  const rounded = maxPlaces === undefined ? value : value.round(maxPlaces, Big.roundHalfUp);
  const text = rounded.toFixed();
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

export { Big };
