import { QUOTA_CORE, QUOTA_MEMORY, type QuotaUsage } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { memo } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatCards, formatGiB } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { UsageBar } from './usage-bar.js';
// Its table and bars are styled there; /workloads shows it without the dashboard's page.
import './allocations.css';

/** Quotas change when pods come and go; the stream does not carry them, so they are re-read. */
const QUOTA_REFRESH_MS = 10_000;

const resourceOf = (quota: QuotaUsage, name: string) =>
  quota.resources.find((resource) => resource.resource === name);

/**
 * Each namespace's ResourceQuotas on mGPU resources: compute and memory used / limit, as the
 * API server charges them (a multi-card container counts its total). Narrowed by the namespace
 * filter; what the form checks a request against before the API server refuses its pods.
 * Shown on the dashboard and on /workloads (issue 17 item 6).
 */
export const QuotaOverview = memo(function QuotaOverview({ namespace }: { namespace: string }) {
  const { t } = useDashboardI18n();
  const trpc = useTRPC();
  const quotas = useQuery({
    ...trpc.cluster.quotas.queryOptions(),
    refetchInterval: QUOTA_REFRESH_MS,
  });
  const shown = (quotas.data ?? []).filter((quota) => !namespace || quota.namespace === namespace);
  if (shown.length === 0) return <p className="muted">{t('allocations.quotas.none')}</p>;
  return (
    <ScrollRegion label={t('allocations.tableOf', { title: t('allocations.quotas.title') })}>
      <table className="alloc-table" data-testid="quota-table">
        <caption className="visually-hidden">{t('allocations.quotas.title')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('allocations.filter.namespace')}</th>
            <th scope="col">{t('allocations.quotas.quota')}</th>
            <th scope="col">{t('allocations.quotas.compute')}</th>
            <th scope="col">{t('allocations.quotas.memory')}</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((quota) => {
            const core = resourceOf(quota, QUOTA_CORE);
            const memory = resourceOf(quota, QUOTA_MEMORY);
            return (
              <tr key={`${quota.namespace}/${quota.name}`} data-testid="quota-row">
                <th scope="row">{quota.namespace}</th>
                <td>{quota.name}</td>
                <td>
                  {core ? (
                    <UsageBar
                      used={core.used}
                      total={core.limit}
                      label={t('allocations.pools.cardsOf', {
                        used: formatCards(core.used),
                        total: formatCards(core.limit),
                      })}
                    />
                  ) : (
                    t('allocations.quotas.unlimited')
                  )}
                </td>
                <td>
                  {memory ? (
                    <UsageBar
                      used={memory.used}
                      total={memory.limit}
                      label={`${formatGiB(memory.used)} / ${formatGiB(memory.limit)}`}
                    />
                  ) : (
                    t('allocations.quotas.unlimited')
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
});
