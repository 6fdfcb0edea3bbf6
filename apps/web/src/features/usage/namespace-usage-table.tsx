import type { NamespaceUsage } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Table, type TableColumnsType } from 'antd';
import type { HTMLAttributes, ReactNode } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { FigureText } from '../../components/figure-text.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { type Translate, useI18n } from '../../i18n/i18n.js';
import { AllocPanel } from '../allocations/alloc-panel.js';
import { formatMiBFigure, formatPercent } from '../allocations/format.js';
import { UnknownFigure, USAGE_REFRESH_MS, UsageSourceNotice } from './usage-figures.js';
import {
  efficiencyPercent,
  formatGpuHours,
  nullsLast,
  sourceOfAll,
  unknownReasonOf,
} from './usage-model.js';

/** A null figure as "—" with the row's reason on hover and for screen readers: never as 0. */
function Unknown({ row }: { row: NamespaceUsage }) {
  const { t } = useI18n();
  const reason = unknownReasonOf(row);
  return <UnknownFigure compact reason={reason} why={t(`usage.reason.${reason}`)} />;
}

const shownOr = (value: number | null, show: (value: number) => ReactNode, row: NamespaceUsage) =>
  value === null ? <Unknown row={row} /> : show(value);

/** "(2 unknown)": how many of the team's workloads a partial figure leaves out, and why on hover. */
function LeftOut({ count, t }: { count: number; t: Translate }) {
  if (count === 0) return null;
  return (
    <span
      className="muted"
      data-testid="namespace-unknown-workloads"
      title={t('usage.namespaces.unknownWorkloads.why')}
    >
      {' '}
      {t('usage.namespaces.unknownWorkloads', { count })}
    </span>
  );
}

/**
 * Used compute beside what it is compared with: with some workloads' use unknown, used covers
 * only the others, so it is shown over their allocation (`knownAllocated`), never over the team's.
 */
function UsedCompute({ row, t }: { row: NamespaceUsage; t: Translate }) {
  if (row.used.computePercent === null) return <Unknown row={row} />;
  if (row.unknownWorkloads === 0)
    return <FigureText>{formatPercent(row.used.computePercent)}</FigureText>;
  return (
    <span>
      {t('usage.namespaces.usedOfKnown', {
        used: formatPercent(row.used.computePercent),
        allocated: formatPercent(row.knownAllocated.computePercent),
      })}
      <LeftOut count={row.unknownWorkloads} t={t} />
    </span>
  );
}

/**
 * Memory allocated: the team's sum, or with whole-card workloads (memory the console cannot size)
 * what is known plus how many are left out — never "whole cards" for the whole team.
 */
function AllocatedMemory({ row, t }: { row: NamespaceUsage; t: Translate }) {
  if (row.allocated.memoryMiB !== null)
    return <FigureText>{formatMiBFigure(row.allocated.memoryMiB)}</FigureText>;
  const known = row.knownMemory;
  return (
    <span data-testid="namespace-memory-whole-cards">
      {t('usage.namespaces.knownPlusWholeCards', {
        known: formatMiBFigure(known.allocatedMiB),
        count: known.wholeCardWorkloads,
      })}
    </span>
  );
}

/**
 * Memory used: unknown for no source or a failed read (the source's reason); otherwise the known
 * workloads' sum and how many are left out, with memory's own words (not the efficiency's).
 */
function UsedMemory({ row, t }: { row: NamespaceUsage; t: Translate }) {
  if (row.used.memoryMiB !== null)
    return <FigureText>{formatMiBFigure(row.used.memoryMiB)}</FigureText>;
  const known = row.knownMemory;
  const sourceReason =
    row.source === 'unavailable'
      ? 'no-source'
      : row.efficiencyUnknownReason === 'source-failed'
        ? 'source-failed'
        : null;
  if (sourceReason !== null)
    return <UnknownFigure compact reason={sourceReason} why={t(`usage.reason.${sourceReason}`)} />;
  // None of the team's workloads read: nothing known to show.
  if (known.usedUnknown >= row.workloads)
    return (
      <UnknownFigure compact reason="memory-unread" why={t('usage.namespaces.memoryUnknown')} />
    );
  return (
    <span>
      <FigureText>{formatMiBFigure(known.usedMiB)}</FigureText>
      <span className="muted" title={t('usage.namespaces.memoryUnknown')}>
        {' '}
        {t('usage.namespaces.unknownWorkloads', { count: known.usedUnknown })}
      </span>
    </span>
  );
}

/**
 * `/allocations`' team table (`usage.namespaces`): per namespace what it holds, what it uses,
 * its efficiency, its idle workloads and the GPU-hours they held idle; every column sorts, with
 * unknown figures last whichever way.
 */
export function NamespaceUsageSection() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const usage = useQuery({
    ...trpc.usage.namespaces.queryOptions(),
    refetchInterval: USAGE_REFRESH_MS,
  });
  const rows = usage.data ?? [];
  const columns: TableColumnsType<NamespaceUsage> = [
    {
      title: t('usage.namespaces.namespace'),
      dataIndex: 'namespace',
      key: 'namespace',
      sorter: (a, b) => a.namespace.localeCompare(b.namespace),
    },
    {
      title: t('usage.namespaces.allocatedCompute'),
      key: 'allocatedCompute',
      sorter: (a, b) => a.allocated.computePercent - b.allocated.computePercent,
      render: (_value, row) => (
        <FigureText>{formatPercent(row.allocated.computePercent)}</FigureText>
      ),
    },
    {
      title: t('usage.namespaces.usedCompute'),
      key: 'usedCompute',
      sorter: nullsLast((row) => row.used.computePercent),
      render: (_value, row) => <UsedCompute row={row} t={t} />,
    },
    {
      title: t('usage.namespaces.allocatedMemory'),
      key: 'allocatedMemory',
      sorter: nullsLast((row) => row.allocated.memoryMiB),
      render: (_value, row) => <AllocatedMemory row={row} t={t} />,
    },
    {
      title: t('usage.namespaces.usedMemory'),
      key: 'usedMemory',
      sorter: nullsLast((row) => row.used.memoryMiB),
      render: (_value, row) => <UsedMemory row={row} t={t} />,
    },
    {
      title: t('usage.namespaces.efficiency'),
      key: 'efficiency',
      defaultSortOrder: 'ascend',
      sorter: nullsLast((row) => row.efficiency),
      render: (_value, row) => (
        <>
          <span data-testid="namespace-efficiency">
            {shownOr(row.efficiency, (value) => efficiencyPercent(value), row)}
          </span>
          {row.efficiency === null ? null : <LeftOut count={row.unknownWorkloads} t={t} />}
        </>
      ),
    },
    {
      title: t('usage.namespaces.idleWorkloads'),
      key: 'idleWorkloads',
      sorter: (a, b) => a.idleWorkloads - b.idleWorkloads,
      render: (_value, row) => (
        <span
          data-testid="namespace-idle-workloads"
          className="figure-text"
        >{`${row.idleWorkloads} / ${row.workloads}`}</span>
      ),
    },
    {
      title: <span title={t('usage.idle.lowerBound')}>{t('usage.namespaces.idleGpuHours')}</span>,
      key: 'idleGpuHours',
      sorter: nullsLast((row) => row.idleGpuHours),
      render: (_value, row) =>
        shownOr(
          row.idleGpuHours,
          // None held idle is exactly 0; any held idle is at least what the source saw.
          (hours) =>
            hours === 0 ? (
              <span data-testid="namespace-idle-hours">0</span>
            ) : (
              <span data-testid="namespace-idle-hours" title={t('usage.idle.lowerBound')}>
                {t('usage.namespaces.idleGpuHours.atLeast', { hours: formatGpuHours(hours) })}
              </span>
            ),
          row,
        ),
    },
  ];
  return (
    <AllocPanel
      id="usage-namespaces-title"
      title={t('usage.namespaces.title')}
      testId="namespace-usage"
    >
      <UsageSourceNotice source={sourceOfAll(rows)} />
      {usage.error ? (
        <Alert type="warning" showIcon title={t('usage.error', { message: usage.error.message })} />
      ) : null}
      {/* Eight columns: on a phone the table scrolls in its own box, which a keyboard reaches. */}
      <ScrollRegion label={t('usage.namespaces.table')}>
        <Table<NamespaceUsage>
          rowKey="namespace"
          size="small"
          columns={columns}
          dataSource={rows}
          loading={usage.isPending}
          pagination={false}
          showSorterTooltip={false}
          locale={{ emptyText: t('usage.namespaces.empty') }}
          onRow={(row) => ({ 'data-namespace': row.namespace }) as HTMLAttributes<HTMLElement>}
        />
      </ScrollRegion>
    </AllocPanel>
  );
}
