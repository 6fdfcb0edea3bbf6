/**
 * Used beside allocated per pool (issue 28, the pool history): the pool's cards' own utilisation
 * summed in the unit of its allocation (100 per card), so "used 130 of 400" sits beside
 * "allocated 300 of 400".
 */
import type { NodeState } from '../placement/types.js';
import { poolOf } from '../pools.js';
import { cardKey, type UtilizationReading } from './readings.js';

/**
 * Each GPU pool's used compute: Σ over its cards of the card's mean utilisation (0–100), by
 * `cardKey`. A pool any card of which has no reading is left out (unknown, never a sum that
 * quietly counts the silent cards as 0).
 */
export function poolComputeUsed(
  states: readonly NodeState[],
  cards: ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>>,
): Map<string, number> {
  const used = new Map<string, number>();
  const unknown = new Set<string>();
  for (const state of states) {
    if (state.resourceType === undefined || state.cards.length === 0) continue;
    const pool = poolOf(state);
    for (const card of state.cards) {
      const percent = cards.get(cardKey(state.name, card.index))?.meanPercent;
      if (percent === null || percent === undefined) unknown.add(pool);
      else used.set(pool, (used.get(pool) ?? 0) + Math.min(100, Math.max(0, percent)));
    }
  }
  for (const pool of unknown) used.delete(pool);
  return used;
}
