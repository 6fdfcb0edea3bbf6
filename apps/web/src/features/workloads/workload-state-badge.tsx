import type { WorkloadStateName, WorkloadStateView } from '@mgpu/shared';
import { Tag } from 'antd';
import { type MessageKey, useI18n } from '../../i18n/i18n.js';

/** Each state's colour, wherever a workload's state is shown (the badge, the rollout panel). */
export const STATE_COLOR: Record<WorkloadStateName, string> = {
  pending: 'gold',
  'rolling-out': 'blue',
  stalled: 'orange',
  running: 'green',
  failed: 'red',
  complete: 'default',
};

/** The reasons the catalogs word: a reason reads differently per state (pending, stalled). */
const REASON_KEYS = {
  'workloadState.reason.pending.unschedulable': true,
  'workloadState.reason.stalled.unschedulable': true,
  'workloadState.reason.stalled.quota-refused': true,
  'workloadState.reason.stalled.progress-deadline': true,
  'workloadState.reason.stalled.create-refused': true,
  'workloadState.reason.failed.image-pull': true,
  'workloadState.reason.failed.crash-loop': true,
  'workloadState.reason.failed.job-failed': true,
  'workloadState.reason.failed.create-refused': true,
} satisfies Partial<Record<MessageKey, true>>;
type ReasonKey = keyof typeof REASON_KEYS;

function reasonKey(view: WorkloadStateView): ReasonKey | undefined {
  if (view.reason === null) return undefined;
  const key = `workloadState.reason.${view.state}.${view.reason}`;
  return key in REASON_KEYS ? (key as ReasonKey) : undefined;
}

/**
 * A workload's state (`workloadState`, spec §9) in words, with the reason of a pending, stalled
 * or failed one: the same badge on the list and the result page. Kubernetes' own (English)
 * words stay one hover away.
 */
export function WorkloadStateBadge({
  view,
  withReason = true,
}: {
  view: WorkloadStateView;
  withReason?: boolean;
}) {
  const { t } = useI18n();
  const key = withReason ? reasonKey(view) : undefined;
  return (
    <span className="workload-state" data-testid="workload-state" data-state={view.state}>
      <Tag color={STATE_COLOR[view.state]} title={view.message ?? undefined}>
        {t(`workloadState.${view.state}`)}
      </Tag>
      {key ? (
        <span className="workload-state-reason" title={view.message ?? undefined}>
          {t(key)}
          {view.pod ? ` (${t('workloadState.pod', { pod: view.pod })})` : null}
        </span>
      ) : null}
    </span>
  );
}
