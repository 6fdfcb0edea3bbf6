/**
 * What a usage source read, as the verdicts need it (issue 28): per allocation record id the
 * instance's own series, per card the card's series. A source fills these; `instanceUsed`
 * decides, once, which figure an instance gets and why it has none.
 */
import type { CardClaim } from '../ledger/claim.js';
import type { UsageSourceKind, UsageUnknownReason } from './terms.js';

/** A utilisation series over the window: null figures when the source has no sample. */
export interface UtilizationReading {
  /** Mean over the window, percent (of its own allocation for an instance, of the card for a card). */
  meanPercent: number | null;
  /** How long, up to the newest sample, it stayed under the idle threshold; null: unknown. */
  quietSeconds: number | null;
  /** MiB used, mean over the window; null: unknown. */
  memoryUsedMiB: number | null;
}

/** One card's series: its utilisation is the whole card's, whoever shares it. */
export interface CardReading extends UtilizationReading {
  node: string;
  card: number;
  uuid: string | null;
  model: string | null;
  memoryFreeMiB: number | null;
}

export interface UsageReadings {
  source: UsageSourceKind;
  simulated: boolean;
  /** The source did not answer: every figure is unknown (`source-failed`). */
  failed: boolean;
  /** Per `instanceReadingKey(node, allocation record id)`. */
  instances: ReadonlyMap<string, UtilizationReading>;
  /** Per `cardKey(node, card)`. */
  cards: ReadonlyMap<string, CardReading>;
}

/** The key of a card in `UsageReadings.cards`. */
export const cardKey = (node: string, card: number): string => `${node}/${card}`;

/**
 * The key of an instance's own series in `UsageReadings.instances`: its node and its record id
 * (`<namespace>/<pod>/<container>/<card>`), so a pod name reused on another node within the
 * window (a StatefulSet's pod recreated elsewhere) never takes the old pod's figures.
 */
export const instanceReadingKey = (node: string, id: string): string => `${node}/${id}`;

/** A container's share of one card, as its allocation record says it. */
export interface HeldInstance {
  id: string;
  node: string;
  card: number;
  requested: CardClaim;
  /** What the node reports its processes hold (spec §6 `vmem_info`), when it reports it. */
  vmem_info?: { used: readonly { used_mib: number }[] } | null;
}

/** MiB the node says the instance's processes hold; null when the node reports nothing. */
export function nodeReportedMemoryMiB(instance: HeldInstance): number | null {
  const used = instance.vmem_info?.used;
  return used ? used.reduce((sum, process) => sum + process.used_mib, 0) : null;
}

/** How many instances sit on each card, from the allocation records. */
export function instancesPerCard(instances: Iterable<HeldInstance>): Map<string, number> {
  const count = new Map<string, number>();
  for (const instance of instances) {
    const key = cardKey(instance.node, instance.card);
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return count;
}

/** What one instance uses, in the units of its allocation (percent of a card, MiB). */
export type InstanceUsed =
  | {
      known: true;
      /** Percent of the card: its own utilisation × its share of the card. */
      computePercent: number;
      memoryMiB: number | null;
      /** Quiet time in the terms of its own utilisation; null when unknown. */
      quietSeconds: number | null;
    }
  | { known: false; reason: UsageUnknownReason; perCardOnly: boolean; memoryMiB: number | null };

/**
 * One instance's figures: its own series where the source has them; else the card's, when it
 * is alone on the card (the card's figure is then its own); a shared card's figure stays the
 * card's (`card-series-only`, HAMi #2015), never one instance's.
 */
export function instanceUsed(
  instance: HeldInstance,
  readings: UsageReadings,
  onCard: ReadonlyMap<string, number>,
): InstanceUsed {
  const key = cardKey(instance.node, instance.card);
  const alone = (onCard.get(key) ?? 0) <= 1;
  const own = readings.instances.get(instanceReadingKey(instance.node, instance.id));
  const card = readings.cards.get(key);
  // Memory: its own series, else what its node reports (spec §6), else its card's if alone.
  const memoryMiB =
    own?.memoryUsedMiB ??
    nodeReportedMemoryMiB(instance) ??
    (alone ? (card?.memoryUsedMiB ?? null) : null);
  const unknown = (reason: UsageUnknownReason, perCardOnly = false) =>
    ({ known: false, reason, perCardOnly, memoryMiB }) as const;
  // No source: every figure null, the node's report too ("unavailable" says it all).
  if (readings.source === 'unavailable')
    return { known: false, reason: 'no-source', perCardOnly: false, memoryMiB: null };
  if (readings.failed) return unknown('source-failed');
  const share = instance.requested.computePercent;
  if (own && own.meanPercent !== null)
    return {
      known: true,
      computePercent: (own.meanPercent * share) / 100,
      memoryMiB,
      quietSeconds: own.quietSeconds,
    };
  if (!card || card.meanPercent === null) return unknown('no-samples');
  if (!alone) return unknown('card-series-only', true);
  // Alone on its card: the card's use is its use. The card's quiet time, though, was judged
  // against the threshold as a percent of the card, which is the instance's own only when it
  // holds the whole card: a half share at 8 % of its own shows 4 % of the card.
  return {
    known: true,
    computePercent: Math.min(card.meanPercent, share),
    memoryMiB,
    quietSeconds: share >= 100 ? card.quietSeconds : null,
  };
}
