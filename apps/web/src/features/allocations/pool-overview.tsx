import type { PoolSummary } from '@mgpu/shared';
import { memo } from 'react';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatCards, formatGiB } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { UsageBar } from './usage-bar.js';

/** One pool's row, memoised: the model keeps a pool's object until one of its nodes changes. */
const PoolRow = memo(function PoolRow({
  pool,
  onPick,
}: {
  pool: PoolSummary;
  onPick(pool: PoolSummary): void;
}) {
  const { t } = useDashboardI18n();
  const whole = pool.resourceType === 'nvidia';
  return (
    <tr data-testid="pool-row" data-pool={pool.pool}>
      <th scope="row">
        <button
          type="button"
          className="alloc-link"
          onClick={() => onPick(pool)}
          title={t('allocations.pools.pick')}
        >
          {pool.model}
        </button>
        <div className="muted alloc-small">
          {whole ? t('allocations.pools.wholeCards') : pool.policy}
        </div>
      </th>
      <td>{t('allocations.pools.nodesCardsValue', { nodes: pool.nodes, cards: pool.cards })}</td>
      <td>
        <UsageBar
          used={pool.compute.allocated}
          total={pool.compute.allocatable}
          stranded={pool.stranded.computePercent}
          label={t('allocations.pools.cardsOf', {
            used: formatCards(pool.compute.allocated),
            total: formatCards(pool.compute.allocatable),
          })}
        />
      </td>
      <td>
        <UsageBar
          used={pool.memoryMiB.allocated}
          total={pool.memoryMiB.allocatable}
          stranded={pool.stranded.memoryMiB}
          label={`${formatGiB(pool.memoryMiB.allocated)} / ${formatGiB(pool.memoryMiB.allocatable)}`}
        />
      </td>
      <td>
        {t('allocations.pools.partlyValue', {
          partly: pool.cardsPartlyUsed,
          idle: pool.cardsIdle,
        })}
      </td>
      <td>
        {whole
          ? '—'
          : pool.stranded.cards === 0
            ? t('allocations.pools.strandedNone')
            : t('allocations.pools.strandedValue', {
                compute: formatCards(pool.stranded.computePercent),
                memory: formatGiB(pool.stranded.memoryMiB),
                cards: pool.stranded.cards,
              })}
      </td>
      <td>
        {whole
          ? t('allocations.pools.fitWhole', { cards: pool.largestFit.idleCards })
          : t('allocations.pools.fitValue', {
              compute: formatCards(pool.largestFit.computePercent),
              memory: formatGiB(pool.largestFit.memoryMiB),
              cards: pool.largestFit.cards,
              idle: pool.largestFit.idleCards,
            })}
      </td>
    </tr>
  );
});

/**
 * One row per pool (model × policy): nodes and cards, compute and memory allocated of total as
 * bars (stranded capacity hatched after the allocated part), partly used and idle cards, what is
 * stranded, and the largest request that still fits on one node of the pool right now.
 */
export const PoolOverview = memo(function PoolOverview({
  pools,
  onPick,
}: {
  pools: PoolSummary[];
  onPick(pool: PoolSummary): void;
}) {
  const { t } = useDashboardI18n();
  if (pools.length === 0) return <p className="muted">{t('allocations.pools.none')}</p>;
  return (
    <ScrollRegion label={t('allocations.tableOf', { title: t('allocations.pools.title') })}>
      <table className="alloc-table alloc-pools">
        <caption className="visually-hidden">{t('allocations.pools.title')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('allocations.pools.pool')}</th>
            <th scope="col">{t('allocations.pools.nodesCards')}</th>
            <th scope="col">{t('allocations.pools.compute')}</th>
            <th scope="col">{t('allocations.pools.memory')}</th>
            <th scope="col">{t('allocations.pools.partly')}</th>
            <th scope="col">{t('allocations.pools.stranded')}</th>
            <th scope="col">{t('allocations.pools.largestFit')}</th>
          </tr>
        </thead>
        <tbody>
          {pools.map((pool) => (
            <PoolRow key={pool.pool} pool={pool} onPick={onPick} />
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
});
