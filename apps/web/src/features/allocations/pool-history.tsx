import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { UsageSourceNotice } from '../usage/usage-figures.js';
import { AllocPanel } from './alloc-panel.js';
import { isClusterWideForbidden } from './cluster-wide-access.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';

/** The chart library comes with the charts, after the dashboard's first paint. */
const HistoryCharts = lazy(() => import('./history-charts.js'));

/** How often the history is read again: the BFF samples every 10 s. */
const HISTORY_REFRESH_MS = 10_000;

/**
 * `cluster.history` as charts: how the pools have been used since when the history reaches,
 * and where the used compute comes from — labelled simulated when it is the embedded cluster's
 * model, a notice when there is no usage source — as the usage pages say it.
 */
export function PoolHistorySection() {
  const { t } = useDashboardI18n();
  const trpc = useTRPC();
  const history = useQuery({
    ...trpc.cluster.history.queryOptions(),
    refetchInterval: HISTORY_REFRESH_MS,
    // No `list nodes`: asking again does not change the answer until the RBAC does.
    retry: (count, error) => !isClusterWideForbidden(error) && count < 3,
  });
  const loading = <p className="loading">{t('allocations.history.loading')}</p>;
  return (
    <AllocPanel
      id="alloc-history-title"
      title={t('allocations.history.title')}
      testId="pool-history"
    >
      <UsageSourceNotice source={history.data?.usage} />
      {isClusterWideForbidden(history.error) ? (
        <p className="muted">{t('allocations.clusterWideForbidden')}</p>
      ) : history.data === undefined ? (
        loading
      ) : history.data.samples.length === 0 ? (
        <p className="muted">{t('allocations.history.empty')}</p>
      ) : (
        <Suspense fallback={loading}>
          <HistoryCharts history={history.data} />
        </Suspense>
      )}
    </AllocPanel>
  );
}
