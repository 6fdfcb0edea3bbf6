import type { AllocationRecord } from '@mgpu/shared';
import { memo } from 'react';
import { Link } from 'react-router';
import { formatMiB, formatPercent } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { VerificationBadge } from './verification-badge.js';
import { VirtualTable } from './virtual-table.js';

const ROW_HEIGHT = 36;
const ROW_STYLE = { height: ROW_HEIGHT };
const COLUMNS = ['9%', '10%', '17%', '8%', '11%', '5%', '7%', '14%', '12%', '7%'];

/**
 * One instance's cells. Memoised on the record object: the model keeps a record's object until
 * the stream changes it, so a frame re-renders only the instances that changed.
 */
const InstanceCells = memo(function InstanceCells({
  record,
  linkTo,
}: {
  record: AllocationRecord;
  linkTo(change: { node?: string; instance?: string }): string;
}) {
  const { t } = useDashboardI18n();
  return (
    <>
      <td>{record.namespace}</td>
      <td>{record.workload ?? '—'}</td>
      <td title={record.pod}>{record.pod}</td>
      <td>{record.container}</td>
      <td>
        <Link to={linkTo({ node: record.node })}>{record.node}</Link>
      </td>
      <td>{record.card}</td>
      <td data-testid="instance-compute">{formatPercent(record.requested.computePercent)}</td>
      <td>{formatMiB(record.requested.memoryMiB, t('allocations.wholeCard'))}</td>
      <td>
        <VerificationBadge record={record} />
      </td>
      <td>
        <Link
          to={linkTo({ instance: record.id })}
          aria-label={t('allocations.instances.detailOf', {
            name: `${record.namespace}/${record.pod}/${record.container}`,
            card: record.card,
          })}
        >
          {t('allocations.col.detail')}
        </Link>
      </td>
    </>
  );
});

/** A row whose place moved (a row above it came or went) changes one attribute, not its cells. */
const InstanceRow = memo(function InstanceRow({
  record,
  index,
  linkTo,
}: {
  record: AllocationRecord;
  index: number;
  linkTo(change: { node?: string; instance?: string }): string;
}) {
  return (
    <tr aria-rowindex={index} style={ROW_STYLE} data-testid="instance-row" data-record={record.id}>
      <InstanceCells record={record} linkTo={linkTo} />
    </tr>
  );
});

/**
 * Every mGPU instance the filters keep — one container on one card — with its share of the card
 * (`60%`) and memory, live. Rows link to the node's card grid and to the instance's detail.
 */
export const InstanceList = memo(function InstanceList({
  records,
  total,
  linkTo,
}: {
  records: AllocationRecord[];
  total: number;
  linkTo(change: { node?: string; instance?: string }): string;
}) {
  const { t } = useDashboardI18n();
  const headings = [
    t('allocations.col.namespace'),
    t('allocations.col.workload'),
    t('result.col.pod'),
    t('result.col.container'),
    t('result.col.node'),
    t('result.col.card'),
    t('allocations.col.compute'),
    t('allocations.col.memory'),
    t('result.col.verification'),
    t('allocations.col.detail'),
  ];
  return (
    <>
      <VirtualTable
        caption={t('allocations.instances.title')}
        regionLabel={t('allocations.tableOf', { title: t('allocations.instances.title') })}
        className="alloc-instances"
        testId="instance-list"
        columns={COLUMNS}
        rowHeight={ROW_HEIGHT}
        maxRows={14}
        items={records}
        headings={headings}
        renderRow={(record, index) => (
          <InstanceRow key={record.id} record={record} index={index} linkTo={linkTo} />
        )}
      />
      {records.length === 0 ? (
        <p className="muted alloc-empty">
          {total === 0 ? t('allocations.instances.none') : t('allocations.instances.noneFiltered')}
        </p>
      ) : null}
      <p className="muted alloc-small">
        {t('allocations.instances.count', { shown: records.length, total })}
      </p>
    </>
  );
});
