/**
 * The usage a procedure reads: the whole cluster's readings over a window, from the read every
 * caller shares (`shared-reads.ts`), which the verdicts in `@mgpu/shared` join with the
 * allocation records.
 */
import {
  type AllocationRecord,
  DEFAULT_USAGE_WINDOW_MINUTES,
  type UsageReadings,
} from '@mgpu/shared';
import type { UsageContext } from './usage-settings.js';
import type { UsageQuery } from './usage-source.js';

export function usageQuery(usage: UsageContext, windowMinutes?: number): UsageQuery {
  return {
    windowSeconds: (windowMinutes ?? DEFAULT_USAGE_WINDOW_MINUTES) * 60,
    idleThresholdPercent: usage.idleThresholdPercent,
    idleAfterSeconds: usage.idleAfterSeconds,
  };
}

/** The readings over the last `windowMinutes` (default `DEFAULT_USAGE_WINDOW_MINUTES`). */
export function readUsage(usage: UsageContext, windowMinutes?: number): Promise<UsageReadings> {
  return usage.reads.read(usageQuery(usage, windowMinutes).windowSeconds);
}

/** Phases whose pod holds no card any more: its record stays until the pod goes. */
const ENDED_PHASES = new Set(['Succeeded', 'Failed']);

/** The records whose instances hold a card now. */
export const heldInstances = <Held extends AllocationRecord>(records: readonly Held[]): Held[] =>
  records.filter((record) => !ENDED_PHASES.has(record.phase ?? ''));
