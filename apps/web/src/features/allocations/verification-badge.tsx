import type { AllocationRecord } from '@mgpu/shared';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';

/** Verified / drift (with the fields that differ) / not reported, as the result page says it. */
export function VerificationBadge({ record }: { record: AllocationRecord }) {
  const { t } = useDashboardI18n();
  const text =
    record.verification === 'verified'
      ? t('result.verification.verified')
      : record.verification === 'drift'
        ? t('result.verification.drift', { fields: record.drift.join(', ') })
        : t('result.verification.unreported');
  return <span className={`alloc-badge alloc-badge-${record.verification}`}>{text}</span>;
}
