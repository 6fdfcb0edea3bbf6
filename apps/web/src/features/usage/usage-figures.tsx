import type { WorkloadUsage } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Tag } from 'antd';
import { useTRPC } from '../../app/trpc.js';
import { sentenceWithFigures } from '../../components/figure-text.js';
import { useI18n } from '../../i18n/i18n.js';
import { formatMiBFigure, formatPercent } from '../allocations/format.js';
import { efficiencyPercent, formatGpuHours, unknownReasonOf } from './usage-model.js';
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

/**
 * "—" and why: an unknown figure never reads as 0. The reason is written muted beside it, or, in
 * a table's narrow cell (`compact`), given on hover and to screen readers.
 */
export function UnknownFigure({
  why,
  reason,
  compact = false,
}: {
  why: string;
  /** The reason's name, for tests and styles. */
  reason: string;
  compact?: boolean;
}) {
  return (
    <span data-testid="usage-unknown" data-reason={reason} title={why}>
      {compact ? '—' : '— '}
      <span className={compact ? 'visually-hidden' : 'muted'}>{why}</span>
    </span>
  );
}

/** The usage answer's state, for a row it has no figures for yet. */
export type UsageAnswerState = 'loading' | 'failed' | 'answered';

/**
 * "≥ 1.25 GPU-hours idle": quiet time is counted only as far back as the source looks, so the
 * figure is a lower bound; the tooltip says why.
 */
function IdleTag({ hours }: { hours: number | null }) {
  const { t } = useI18n();
  return (
    <Tag color="orange" data-testid="usage-idle" title={t('usage.idle.lowerBound')}>
      {hours === null ? t('usage.idle') : t('usage.idle.hours', { hours: formatGpuHours(hours) })}
    </Tag>
  );
}

/**
 * A workload's usage column: used beside allocated (compute, memory), efficiency in percent, and
 * the Idle badge with the GPU-hours it held idle (at least). Figures of a shared card's whole
 * card are never shown as the workload's own; a row with no figures says why (still loading,
 * the read failed, created since the last read).
 */
export function WorkloadUsageCell({
  usage,
  state,
}: {
  usage: WorkloadUsage | undefined;
  state: UsageAnswerState;
}) {
  const { t } = useI18n();
  if (!usage)
    return (
      <span data-testid="usage" data-efficiency="unknown">
        <UnknownFigure reason={state} why={t(`usage.row.${state}`)} />
      </span>
    );
  const { allocated, used } = usage;
  const efficiency = efficiencyPercent(usage.efficiency);
  const reason = unknownReasonOf(usage);
  return (
    <div data-testid="usage" data-efficiency={usage.efficiency ?? 'unknown'}>
      {/* A figure never breaks inside its number and unit, however narrow the column. */}
      <div>
        {sentenceWithFigures((figure) =>
          t('usage.compute', {
            used: used.computePercent === null ? '—' : figure(formatPercent(used.computePercent)),
            allocated: figure(formatPercent(allocated.computePercent)),
          }),
        )}
      </div>
      <div>
        {sentenceWithFigures((figure) =>
          t('usage.memory', {
            used: used.memoryMiB === null ? '—' : figure(formatMiBFigure(used.memoryMiB)),
            allocated:
              allocated.memoryMiB === null
                ? t('usage.wholeCards')
                : figure(formatMiBFigure(allocated.memoryMiB)),
          }),
        )}
      </div>
      <div>
        {efficiency === null ? (
          <>
            {t('usage.efficiency.label')}{' '}
            <UnknownFigure reason={reason} why={t(`usage.reason.${reason}`)} />
          </>
        ) : (
          <span data-testid="usage-efficiency">
            {t('usage.efficiency', { percent: efficiency })}
          </span>
        )}
      </div>
      {usage.idle === true ? <IdleTag hours={usage.idleGpuHours} /> : null}
      {usage.idle === null ? (
        <Tag
          className="muted"
          data-testid="usage-idle-unknown"
          title={
            usage.efficiency === null ? t(`usage.reason.${reason}`) : t('usage.idle.unknown.why')
          }
        >
          {t('usage.idle.unknown')}
        </Tag>
      ) : null}
    </div>
  );
}
