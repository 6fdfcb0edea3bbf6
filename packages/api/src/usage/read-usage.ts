/**
 * One read of the usage source for a procedure: every instance's and every card's figures in
 * two batched calls, keyed as the verdicts in `@mgpu/shared` join them with the allocation
 * records. A source that fails gives `failed` readings (every figure null, `source-failed`),
 * never an error page for a table that has allocation figures to show.
 */
import {
  type AllocationRecord,
  type CardReading,
  cardKey,
  DEFAULT_USAGE_WINDOW_MINUTES,
  type UsageReadings,
  type UtilizationReading,
} from '@mgpu/shared';
import type { UsageContext } from './usage-settings.js';
import { instanceRecordId, type UsageQuery } from './usage-source.js';

export function usageQuery(usage: UsageContext, windowMinutes?: number): UsageQuery {
  return {
    windowSeconds: (windowMinutes ?? DEFAULT_USAGE_WINDOW_MINUTES) * 60,
    idleThresholdPercent: usage.idleThresholdPercent,
    idleAfterSeconds: usage.idleAfterSeconds,
  };
}

export async function readUsage(
  usage: UsageContext,
  windowMinutes?: number,
): Promise<UsageReadings> {
  const { source } = usage;
  const readings: UsageReadings = {
    source: source.kind,
    simulated: source.simulated,
    failed: false,
    instances: new Map(),
    cards: new Map(),
  };
  if (source.kind === 'unavailable') return readings;
  const query = usageQuery(usage, windowMinutes);
  try {
    const [instances, cards] = await Promise.all([
      source.instanceUsage(query),
      source.cardUsage(query),
    ]);
    return {
      ...readings,
      instances: new Map(
        instances.map((instance): [string, UtilizationReading] => [
          instanceRecordId(instance),
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

/** Phases whose pod holds no card any more: its record stays until the pod goes. */
const ENDED_PHASES = new Set(['Succeeded', 'Failed']);

/** The records whose instances hold a card now. */
export const heldInstances = <Held extends AllocationRecord>(records: readonly Held[]): Held[] =>
  records.filter((record) => !ENDED_PHASES.has(record.phase ?? ''));
