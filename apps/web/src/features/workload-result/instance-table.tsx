import type { AllocationRecord } from '@mgpu/shared';
import { Table, type TableColumnsType, Tag } from 'antd';
import { useState } from 'react';
import { FigureText } from '../../components/figure-text.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { useI18n } from '../../i18n/i18n.js';
import { InstanceUsedCell, useNodesCardUsage } from '../usage/card-usage.js';
import { UsageSourceNotice } from '../usage/usage-figures.js';
import { WEIGHT_FIELDS, weightsAgree } from './instance-columns.js';

/** Shows what a node reported, or a dash: a field no node reported is never made up. */
const reported = (value: string | number | boolean | null) =>
  value === null ? '—' : String(value);

function VerificationBadge({ record }: { record: AllocationRecord }) {
  const { t } = useI18n();
  switch (record.verification) {
    case 'verified':
      return <Tag color="green">{t('result.verification.verified')}</Tag>;
    case 'drift':
      return (
        <Tag color="red">{t('result.verification.drift', { fields: record.drift.join(', ') })}</Tag>
      );
    default:
      return <Tag>{t('result.verification.unreported')}</Tag>;
  }
}

/**
 * Each instance the node reported, beside what was asked. By default without repeats: the three
 * compute weights are one column when every instance reports them alike, and the ids are left
 * out; "raw fields" shows every §6 field under the name the node uses.
 */
export function InstanceTable({
  records,
  labelledBy,
}: {
  records: AllocationRecord[];
  /** The heading that names the table's scrolling box. */
  labelledBy: string;
}) {
  const { t } = useI18n();
  const [raw, setRaw] = useState(false);
  // Node-side columns keep the §6 names operators know from the node, in every language.
  const nodeColumn = (field: keyof AllocationRecord & string, title: string = field) => ({
    title,
    key: field,
    render: (_: unknown, record: AllocationRecord) =>
      reported(record[field] as string | number | boolean | null),
  });
  const foldWeights = !raw && weightsAgree(records);
  const usage = useNodesCardUsage([...new Set(records.map((record) => record.node))].sort());
  const columns: TableColumnsType<AllocationRecord> = [
    { title: t('result.col.pod'), dataIndex: 'pod', key: 'pod' },
    { title: t('result.col.container'), dataIndex: 'container', key: 'container' },
    { title: t('result.col.node'), dataIndex: 'node', key: 'node' },
    { title: t('result.col.card'), dataIndex: 'card', key: 'card' },
    ...(raw ? [nodeColumn('device_id'), nodeColumn('instance_id')] : []),
    ...(foldWeights
      ? [nodeColumn('compute_weight_native_burst', t('result.col.weights'))]
      : WEIGHT_FIELDS.map((field) => nodeColumn(field))),
    nodeColumn('vmem_limit'),
    {
      title: t('result.col.requested'),
      key: 'requested',
      render: (_, record) => (
        <>
          <FigureText>{`${record.requested.computePercent}%`}</FigureText> /{' '}
          {record.requested.memoryMiB === null ? (
            '—'
          ) : (
            <FigureText>{`${record.requested.memoryMiB} MiB`}</FigureText>
          )}
        </>
      ),
    },
    {
      title: t('usage.col.used'),
      key: 'used',
      render: (_, record) => (
        <InstanceUsedCell
          index={usage.index}
          id={record.id}
          node={record.node}
          card={record.card}
        />
      ),
    },
    {
      title: t('result.col.verification'),
      key: 'verification',
      render: (_, record) => <VerificationBadge record={record} />,
    },
    // Long and rarely read: last, so the weights and the badge stay on screen.
    ...(raw ? [nodeColumn('container_id')] : []),
  ];
  return (
    <>
      <label className="instance-raw-toggle">
        <input type="checkbox" checked={raw} onChange={(event) => setRaw(event.target.checked)} />{' '}
        {t('result.rawFields')}
      </label>
      <UsageSourceNotice source={usage.answer} />
      {/* Wider than a phone: it scrolls in its own box, which a keyboard reaches, not the page. */}
      <ScrollRegion labelledBy={labelledBy}>
        <Table
          rowKey="id"
          size="small"
          pagination={false}
          columns={columns}
          dataSource={records}
          locale={{ emptyText: t('result.noInstances') }}
        />
      </ScrollRegion>
    </>
  );
}
