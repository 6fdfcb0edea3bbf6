import type { UtilizationReading } from '@mgpu/shared';
import type { UsageContext } from './usage-settings.js';
import type { UsageRange } from './usage-source.js';

/** The pool history's window: a sample every 10 s shows the last minute's mean, not an hour's. */
const CARD_USE_WINDOW_SECONDS = 60;

/**
 * Every card's own mean utilisation over the last minute, by `cardKey`, in one batched read of
 * the mean alone (the pool history's used compute, every 10 s, whoever watches; no idle look
 * back, no memory): a card the source has no figure of is absent, so unknown; null without a
 * source. A source that fails rejects: the history records that sample's used figure as unknown.
 */
export async function readCardUse(
  usage: UsageContext,
): Promise<ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>> | null> {
  if (usage.source.kind === 'unavailable') return null;
  const means = await usage.source.cardMeanUtilization(CARD_USE_WINDOW_SECONDS);
  return new Map([...means].map(([key, meanPercent]) => [key, { meanPercent }] as const));
}

/** One past point of the cards' use, as `readCardUse` gives the present one. */
export interface CardUseAt {
  at: number;
  cards: ReadonlyMap<string, Pick<UtilizationReading, 'meanPercent'>>;
}

/**
 * The cards' use over a past range (oldest first) from a source that keeps history — Prometheus,
 * in one batched range query — so the pool history shows the hour before the console started;
 * null from a source without history (the embedded exporter keeps only what it read itself).
 */
export async function readCardUseBefore(
  usage: UsageContext,
  range: UsageRange,
): Promise<CardUseAt[] | null> {
  if (!usage.source.cardUtilizationRange) return null;
  const points = await usage.source.cardUtilizationRange(range);
  return points.map((point) => ({
    at: point.at,
    cards: new Map(
      [...point.percentByCard].map(([key, meanPercent]) => [key, { meanPercent }] as const),
    ),
  }));
}
