import { Result } from 'antd';
import { Link } from 'react-router';
import { useI18n } from '../i18n/i18n.js';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <Result
      status="404"
      title={<h1 className="page-title">{t('notFound.title')}</h1>}
      extra={<Link to="/workloads/new">{t('notFound.back')}</Link>}
    />
  );
}
