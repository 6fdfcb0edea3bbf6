/**
 * One read of a usage source: every instance's and every card's figures in two batched calls,
 * keyed as the verdicts in `@mgpu/shared` join them with the allocation records. A source that
 * fails gives `failed` readings (every figure null, `source-failed`), never an error page for a
 * table that has allocation figures to show.
 */
import {
  type CardReading,
  cardKey,
  instanceReadingKey,
  type UsageReadings,
  type UtilizationReading,
} from '@mgpu/shared';
import { instanceRecordId, type UsageQuery, type UsageSource } from './usage-source.js';

/** Reads the source now, every instance's and every card's figures; never rejects. */
export async function readSourceUsage(
  source: UsageSource,
  query: UsageQuery,
): Promise<UsageReadings> {
  const readings: UsageReadings = {
    source: source.kind,
    simulated: source.simulated,
    failed: false,
    instances: new Map(),
    cards: new Map(),
  };
  if (source.kind === 'unavailable') return readings;
  try {
    const [instances, cards] = await Promise.all([
      source.instanceUsage(query),
      source.cardUsage(query),
    ]);
    return {
      ...readings,
      instances: new Map(
        instances.map((instance): [string, UtilizationReading] => [
          instanceReadingKey(instance.node, instanceRecordId(instance)),
          {
            meanPercent: instance.utilization.meanPercent,
            quietSeconds: instance.utilization.quietSeconds,
            memoryUsedMiB: instance.memoryUsedMiB,
          },
        ]),
      ),
      cards: new Map(
        cards.map((card): [string, CardReading] => [
          cardKey(card.node, card.card),
          {
            node: card.node,
            card: card.card,
            uuid: card.uuid,
            model: card.model,
            meanPercent: card.utilization.meanPercent,
            quietSeconds: card.utilization.quietSeconds,
            memoryUsedMiB: card.memoryUsedMiB,
            memoryFreeMiB: card.memoryFreeMiB,
          },
        ]),
      ),
    };
  } catch {
    return { ...readings, failed: true };
  }
}
