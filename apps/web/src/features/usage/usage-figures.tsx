import type { WorkloadUsage } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Tag } from 'antd';
import { useTRPC } from '../../app/trpc.js';
import { useI18n } from '../../i18n/i18n.js';
import {
  efficiencyPercent,
  formatComputePercent,
  formatGpuHours,
  formatUsedMiB,
  unknownReasonOf,
} from './usage-model.js';
import './usage.css';

/** The exporter is read every ~15 s: asking more often shows nothing new. */
export const USAGE_REFRESH_MS = 15_000;

/** `usage.workloads` for every namespace the operator may read, kept fresh. */
export function useWorkloadUsage() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.usage.workloads.queryOptions(), refetchInterval: USAGE_REFRESH_MS });
}

/**
 * Where the figures come from, said where they are shown: the embedded cluster's model is
 * labelled as simulated, and no source at all is a notice with the flag that sets one, so a
 * column of dashes is never mistaken for idle cards.
 */
export function UsageSourceNotice({
  source,
}: {
  source: Pick<WorkloadUsage, 'source' | 'simulated'> | undefined;
}) {
  const { t } = useI18n();
  if (!source) return null;
  if (source.source === 'unavailable')
    return (
      <Alert
        type="info"
        showIcon
        data-testid="usage-unavailable"
        title={t('usage.unavailable.title')}
        description={t('usage.unavailable.body')}
      />
    );
  return source.simulated ? (
    <p className="muted usage-source">
      <Tag color="purple" data-testid="usage-simulated">
        {t('usage.simulated')}
      </Tag>
      {t('usage.simulated.hint')}
    </p>
  ) : null;
}

/** "—" and why: an unknown figure never reads as 0. */
function Unknown({ usage }: { usage: WorkloadUsage }) {
  const { t } = useI18n();
  const reason = unknownReasonOf(usage);
  return (
    <span data-testid="usage-unknown" data-reason={reason} title={t(`usage.reason.${reason}`)}>
      {'— '}
      <span className="muted">{t(`usage.reason.${reason}`)}</span>
    </span>
  );
}

/**
 * A workload's usage column: used beside allocated (compute, memory), efficiency in percent, and
 * the Idle badge with the GPU-hours it held idle. Figures of a shared card's whole card are
 * never shown as the workload's own.
 */
export function WorkloadUsageCell({ usage }: { usage: WorkloadUsage | undefined }) {
  const { t } = useI18n();
  if (!usage) return <span data-testid="usage">—</span>;
  const { allocated, used } = usage;
  const efficiency = efficiencyPercent(usage.efficiency);
  return (
    <div data-testid="usage" data-efficiency={usage.efficiency ?? 'unknown'}>
      <div>
        {t('usage.compute', {
          used: used.computePercent === null ? '—' : formatComputePercent(used.computePercent),
          allocated: formatComputePercent(allocated.computePercent),
        })}
      </div>
      <div>
        {t('usage.memory', {
          used: used.memoryMiB === null ? '—' : formatUsedMiB(used.memoryMiB),
          allocated:
            allocated.memoryMiB === null
              ? t('usage.wholeCards')
              : formatUsedMiB(allocated.memoryMiB),
        })}
      </div>
      <div>
        {efficiency === null ? (
          <>
            {t('usage.efficiency.label')} <Unknown usage={usage} />
          </>
        ) : (
          <span data-testid="usage-efficiency">
            {t('usage.efficiency', { percent: efficiency })}
          </span>
        )}
      </div>
      {usage.idle ? (
        <Tag color="orange" data-testid="usage-idle">
          {usage.idleGpuHours === null
            ? t('usage.idle')
            : t('usage.idle.hours', { hours: formatGpuHours(usage.idleGpuHours) })}
        </Tag>
      ) : null}
    </div>
  );
}
