import type { NamespaceUsage } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert, Table, type TableColumnsType } from 'antd';
import type { HTMLAttributes, ReactNode } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { useI18n } from '../../i18n/i18n.js';
import { USAGE_REFRESH_MS, UsageSourceNotice } from './usage-figures.js';
import {
  efficiencyPercent,
  formatComputePercent,
  formatGpuHours,
  formatUsedMiB,
  nullsLast,
  sourceOfAll,
  unknownReasonOf,
} from './usage-model.js';

/** A null figure as "—" with its reason on hover and for screen readers: never as 0. */
function UnknownFigure({ row }: { row: NamespaceUsage }) {
  const { t } = useI18n();
  const reason = t(`usage.reason.${unknownReasonOf(row)}`);
  return (
    <span title={reason} data-testid="usage-unknown">
      —<span className="visually-hidden">{reason}</span>
    </span>
  );
}

const shownOr = (value: number | null, show: (value: number) => ReactNode, row: NamespaceUsage) =>
  value === null ? <UnknownFigure row={row} /> : show(value);

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
      render: (_value, row) => formatComputePercent(row.allocated.computePercent),
    },
    {
      title: t('usage.namespaces.usedCompute'),
      key: 'usedCompute',
      sorter: nullsLast((row) => row.used.computePercent),
      render: (_value, row) => shownOr(row.used.computePercent, formatComputePercent, row),
    },
    {
      title: t('usage.namespaces.allocatedMemory'),
      key: 'allocatedMemory',
      sorter: nullsLast((row) => row.allocated.memoryMiB),
      render: (_value, row) =>
        row.allocated.memoryMiB === null
          ? t('usage.wholeCards')
          : formatUsedMiB(row.allocated.memoryMiB),
    },
    {
      title: t('usage.namespaces.usedMemory'),
      key: 'usedMemory',
      sorter: nullsLast((row) => row.used.memoryMiB),
      render: (_value, row) => shownOr(row.used.memoryMiB, formatUsedMiB, row),
    },
    {
      title: t('usage.namespaces.efficiency'),
      key: 'efficiency',
      defaultSortOrder: 'ascend',
      sorter: nullsLast((row) => row.efficiency),
      render: (_value, row) => (
        <span data-testid="namespace-efficiency">
          {shownOr(row.efficiency, (value) => efficiencyPercent(value), row)}
        </span>
      ),
    },
    {
      title: t('usage.namespaces.idleWorkloads'),
      key: 'idleWorkloads',
      sorter: (a, b) => a.idleWorkloads - b.idleWorkloads,
      render: (_value, row) => (
        <span data-testid="namespace-idle-workloads">{`${row.idleWorkloads} / ${row.workloads}`}</span>
      ),
    },
    {
      title: t('usage.namespaces.idleGpuHours'),
      key: 'idleGpuHours',
      sorter: nullsLast((row) => row.idleGpuHours),
      render: (_value, row) => shownOr(row.idleGpuHours, formatGpuHours, row),
    },
  ];
  return (
    <section
      className="alloc-panel"
      aria-labelledby="usage-namespaces-title"
      data-testid="namespace-usage"
    >
      <h2 id="usage-namespaces-title" className="section-title">
        {t('usage.namespaces.title')}
      </h2>
      <UsageSourceNotice source={sourceOfAll(rows)} />
      {usage.error ? (
        <Alert type="warning" showIcon title={t('usage.error', { message: usage.error.message })} />
      ) : null}
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
    </section>
  );
}
