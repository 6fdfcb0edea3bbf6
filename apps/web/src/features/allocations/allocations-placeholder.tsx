import { Alert } from 'antd';
import { useI18n } from '../../i18n/i18n.js';

/** The per-card dashboard is a later issue; this page says so instead of showing made-up data. */
export function AllocationsPlaceholder() {
  const { t } = useI18n();
  return (
    <section>
      <h1 className="page-title">{t('allocations.title')}</h1>
      <Alert type="info" showIcon title={t('allocations.coming')} />
    </section>
  );
}
