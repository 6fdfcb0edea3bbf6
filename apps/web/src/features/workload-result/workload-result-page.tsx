import {
  type AllocationRecord,
  PROGRESS_STAGES,
  type ProgressStage,
  type WorkloadProgress,
} from '@mgpu/shared';
import { useSubscription } from '@trpc/tanstack-react-query';
import { Alert, Table, type TableColumnsType, Tag, Timeline } from 'antd';
import { Link, useParams } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { type MessageKey, useI18n } from '../../i18n/i18n.js';

const STATE_COLOR: Record<ProgressStage['state'], string> = {
  done: 'green',
  pending: 'gray',
  failed: 'red',
};

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

function InstanceTable({ records }: { records: AllocationRecord[] }) {
  const { t } = useI18n();
  // Node-side columns keep the §6 names operators know from the node, in every language.
  const nodeColumn = (field: keyof AllocationRecord & string) => ({
    title: field,
    key: field,
    render: (_: unknown, record: AllocationRecord) =>
      reported(record[field] as string | number | boolean | null),
  });
  const columns: TableColumnsType<AllocationRecord> = [
    { title: t('result.col.pod'), dataIndex: 'pod', key: 'pod' },
    { title: t('result.col.container'), dataIndex: 'container', key: 'container' },
    { title: t('result.col.node'), dataIndex: 'node', key: 'node' },
    { title: t('result.col.card'), dataIndex: 'card', key: 'card' },
    nodeColumn('device_id'),
    nodeColumn('instance_id'),
    nodeColumn('compute_weight_native_burst'),
    nodeColumn('compute_weight_online'),
    nodeColumn('compute_weight'),
    nodeColumn('vmem_limit'),
    {
      title: t('result.col.requested'),
      key: 'requested',
      render: (_, record) =>
        `${record.requested.computePercent}% / ${
          record.requested.memoryMiB === null ? '—' : `${record.requested.memoryMiB} MiB`
        }`,
    },
    {
      title: t('result.col.verification'),
      key: 'verification',
      render: (_, record) => <VerificationBadge record={record} />,
    },
    // Long and rarely read: last, so the weights and the badge stay on screen.
    nodeColumn('container_id'),
  ];
  return (
    <Table
      rowKey="id"
      size="small"
      pagination={false}
      columns={columns}
      dataSource={records}
      scroll={{ x: true }}
      locale={{ emptyText: t('result.noInstances') }}
    />
  );
}

function ProgressTimeline({ progress }: { progress: WorkloadProgress }) {
  const { t } = useI18n();
  const byStage = new Map(progress.stages.map((stage) => [stage.stage, stage]));
  return (
    <Timeline
      items={PROGRESS_STAGES.map((name) => {
        const stage = byStage.get(name);
        const state = stage?.state ?? 'pending';
        return {
          key: name,
          color: STATE_COLOR[state],
          content: (
            <div data-testid={`stage-${name}`} data-state={state}>
              <strong>{t(`result.stage.${name}` as MessageKey)}</strong>{' '}
              <span>{t(`result.state.${state}` as MessageKey)}</span>
              {stage?.detail ? <pre className="stage-detail">{stage.detail}</pre> : null}
            </div>
          ),
        };
      })}
    />
  );
}

/** `/workloads/:namespace/:name`: the live timeline and what each card really got. */
export function WorkloadResultPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const { namespace = '', name = '' } = useParams();
  const subscription = useSubscription(
    trpc.workload.progress.subscriptionOptions({ namespace, name }),
  );
  const progress = subscription.data?.data;

  return (
    <section className="result-page">
      <h1 className="page-title">{t('result.title', { namespace, name })}</h1>
      {subscription.error ? (
        <Alert
          type="error"
          showIcon
          title={t('result.error', { message: subscription.error.message })}
        />
      ) : null}
      {!progress ? (
        <p className="muted">{t('result.connecting')}</p>
      ) : !progress.exists ? (
        <Alert type="warning" showIcon title={t('result.absent')} />
      ) : (
        <>
          <p role="status" data-testid="outcome" data-outcome={progress.outcome}>
            <Tag
              color={
                progress.outcome === 'verified'
                  ? 'green'
                  : progress.outcome === 'failed'
                    ? 'red'
                    : 'blue'
              }
            >
              {t(`result.outcome.${progress.outcome}` as MessageKey)}
            </Tag>{' '}
            {t('result.replicas', progress.replicas)}
          </p>
          <h2 className="section-title">{t('result.timeline')}</h2>
          <ProgressTimeline progress={progress} />
          <h2 className="section-title">{t('result.instances')}</h2>
          <InstanceTable records={progress.records} />
        </>
      )}
      <p>
        <Link to="/workloads/new">{t('result.createAnother')}</Link>
      </p>
    </section>
  );
}
