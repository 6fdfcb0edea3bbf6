import type { WorkloadProgress } from '@mgpu/shared';
import { Tag } from 'antd';
import { useI18n } from '../../i18n/i18n.js';
import { WorkloadStateBadge } from '../workloads/workload-state-badge.js';

/**
 * The result page's headline: the workload's one state (`workloadState`) with its reason, the
 * ready replicas, and the nodes' verification once it passed. The state alone says failed, so a
 * workload whose pods wait for a node never reads "failed" beside "running" (issue 27).
 */
export function WorkloadHeadline({ progress }: { progress: WorkloadProgress }) {
  const { t } = useI18n();
  return (
    <p role="status" data-testid="outcome" data-outcome={progress.outcome}>
      {progress.state ? (
        <WorkloadStateBadge view={progress.state} />
      ) : (
        // An older BFF sends no state: its outcome, as it was.
        <Tag color={progress.outcome === 'failed' ? 'red' : 'blue'}>
          {t(`result.outcome.${progress.outcome}`)}
        </Tag>
      )}{' '}
      {t('result.replicas', progress.replicas)}{' '}
      {progress.outcome === 'verified' ? (
        <Tag color="green">{t('result.outcome.verified')}</Tag>
      ) : null}
    </p>
  );
}
