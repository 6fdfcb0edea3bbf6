/**
 * Used beside allocated on every card (issue 28 "On every card"): the card's own figures, and
 * each instance's where the source has them. A shared card's figure stays the card's: with no
 * per-instance series its instances read null, never the card's figure split among them.
 */
import type { CardUsageFigures } from '../api/usage-cards.js';
import { cardKey, type HeldInstance, instanceUsed, type UsageReadings } from './readings.js';

/**
 * Every card the source or the records know, sorted by node and index: cards nobody holds show
 * their own figures (an unused card at 0 % is known idle), held cards their instances too.
 */
export function cardFigures(
  held: readonly HeldInstance[],
  readings: UsageReadings,
  onCard: ReadonlyMap<string, number>,
  /** Cards held by instances the caller may not see: listed whole, their instances left out. */
  alsoHeld: Iterable<{ node: string; card: number }> = [],
): CardUsageFigures[] {
  const cards = new Map<string, CardUsageFigures>();
  const cardOf = (node: string, card: number): CardUsageFigures => {
    const key = cardKey(node, card);
    const known = cards.get(key);
    if (known) return known;
    const reading = readings.source === 'unavailable' ? undefined : readings.cards.get(key);
    const figures: CardUsageFigures = {
      node,
      card,
      uuid: reading?.uuid ?? null,
      model: reading?.model ?? null,
      used: {
        computePercent: reading?.meanPercent ?? null,
        memoryMiB: reading?.memoryUsedMiB ?? null,
      },
      memoryFreeMiB: reading?.memoryFreeMiB ?? null,
      instances: [],
      withheld: null,
    };
    cards.set(key, figures);
    return figures;
  };
  if (!readings.failed)
    for (const reading of readings.cards.values()) cardOf(reading.node, reading.card);
  for (const other of alsoHeld) cardOf(other.node, other.card);
  for (const instance of held) {
    const used = instanceUsed(instance, readings, onCard);
    cardOf(instance.node, instance.card).instances.push({
      id: instance.id,
      used: {
        computePercent: used.known ? used.computePercent : null,
        memoryMiB: used.memoryMiB,
      },
    });
  }
  return [...cards.values()].sort((a, b) => a.node.localeCompare(b.node) || a.card - b.card);
}

/**
 * The cards as an operator who may not `list nodes` sees them (under `--auth`): only those that
 * hold one of their own instances (`held`, already cut to their namespaces), each with those
 * instances' own figures and the card's own — every holder's together, other teams' too — null,
 * saying why. Nothing of a namespace they may not see is left: no card it alone holds, no figure
 * its use is part of.
 */
export function ownCardFigures(
  held: readonly HeldInstance[],
  readings: UsageReadings,
  onCard: ReadonlyMap<string, number>,
): CardUsageFigures[] {
  const holding = new Set(held.map((instance) => cardKey(instance.node, instance.card)));
  return cardFigures(held, readings, onCard)
    .filter((card) => holding.has(cardKey(card.node, card.card)))
    .map((card) => ({
      ...card,
      uuid: null,
      model: null,
      used: { computePercent: null, memoryMiB: null },
      memoryFreeMiB: null,
      withheld: 'needs-list-nodes',
    }));
}
