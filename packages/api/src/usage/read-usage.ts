/**
 * The usage a procedure reads: the whole cluster's readings over a window, from the read every
 * caller shares (`shared-reads.ts`), which the verdicts in `@mgpu/shared` join with the
 * allocation records.
 */
import {
  type AllocationRecord,
  DEFAULT_USAGE_WINDOW_MINUTES,
  type HeldCard,
  type MgpuNodeStatus,
  podWholeCards,
  readMgpuNodeStatus,
  type UsageReadings,
} from '@mgpu/shared';
import type { ClusterClient } from '../cluster/cluster-client.js';
import { inputRuleFailure } from '../trpc/init.js';
import type { UsageContext } from './usage-settings.js';
import type { UsageQuery } from './usage-source.js';

export function usageQuery(usage: UsageContext, windowMinutes?: number): UsageQuery {
  return {
    windowSeconds: (windowMinutes ?? DEFAULT_USAGE_WINDOW_MINUTES) * 60,
    idleThresholdPercent: usage.idleThresholdPercent,
    idleAfterSeconds: usage.idleAfterSeconds,
  };
}

/**
 * The readings over the last `windowMinutes` (default `DEFAULT_USAGE_WINDOW_MINUTES`). A window
 * longer than the source keeps is refused (BAD_REQUEST on `windowMinutes`), rather than averaged
 * over the shorter span it holds and labelled with the longer one.
 */
export function readUsage(usage: UsageContext, windowMinutes?: number): Promise<UsageReadings> {
  const max = usage.maxWindowMinutes;
  if (windowMinutes !== undefined && max !== undefined && windowMinutes > max)
    throw windowTooLong(windowMinutes, max);
  return usage.reads.read(usageQuery(usage, windowMinutes).windowSeconds);
}

/** The refusal, on the input field as the schema's own refusals are (`invalid-input`). */
const windowTooLong = (asked: number, max: number) =>
  inputRuleFailure(
    'windowMinutes',
    `windowMinutes ${asked} is longer than the ${max} minutes of samples the embedded GPU ` +
      'exporter keeps (--idle-after or 10 minutes, the longer)',
    `Ask for at most ${max} minutes, start the console with a longer --idle-after, or read ` +
      'usage from Prometheus (--prometheus-url), which keeps what it keeps.',
  );

/** Phases whose pod holds no card any more: its record stays until the pod goes. */
const ENDED_PHASES = new Set(['Succeeded', 'Failed']);

/** The records whose instances hold a card now. */
export const heldInstances = <Held extends Pick<AllocationRecord, 'phase'>>(
  records: readonly Held[],
): Held[] => records.filter((record) => !ENDED_PHASES.has(record.phase ?? ''));

/**
 * Every card held now as usage counts it: the allocation records, and the whole
 * `nvidia.com/gpu` cards of the cached pods (no record, not being mGPU instances) under the
 * same id, which the embedded exporter's instance series and a card's own series both match.
 */
export function heldCards(
  records: readonly AllocationRecord[],
  cluster: Pick<ClusterClient, 'pods' | 'mgpuNodes'>,
): HeldCard[] {
  const reports = new Map<string, MgpuNodeStatus | undefined>();
  const reportOf = (node: string) => () => {
    if (!reports.has(node)) {
      const object = cluster.mgpuNodes.get(node);
      reports.set(node, object ? readMgpuNodeStatus(object) : undefined);
    }
    return reports.get(node);
  };
  const whole = cluster.pods
    .list()
    .flatMap((pod) => podWholeCards(pod, reportOf(pod.spec?.nodeName ?? '')));
  return heldInstances<HeldCard>([...records, ...whole]);
}
