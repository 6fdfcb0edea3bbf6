import { type AllocationRecord, NODE_SIDE_FIELDS, type NodeSideField } from '@mgpu/shared';
import { memo } from 'react';
import { Link } from 'react-router';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatMiB, formatPercent } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { VerificationBadge } from './verification-badge.js';

type Source = 'node-agent' | 'pod-status' | 'scheduler-annotation' | 'pod-spec' | 'none';

/** A node-side value as text: a field no node reported is a dash, never made up. */
function shown(record: AllocationRecord, field: NodeSideField): string {
  const value = record[field];
  if (value === null) return '—';
  if (field === 'vmem_info' && typeof value === 'object' && !Array.isArray(value)) {
    const used = value.used.map((entry) => `${entry.pid}: ${entry.used_mib} MiB`).join(', ');
    return `free_mib ${value.free_mib}${used ? `; ${used}` : ''}`;
  }
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.join(', ');
  // Reported but empty (pod_uid usually is, spec §6): show that it was reported.
  if (value === '') return '""';
  return String(value);
}

function sourceOf(record: AllocationRecord, field: NodeSideField): Source {
  if (record[field] === null) return 'none';
  if (field === 'container_id') return record.sources.container_id ?? 'none';
  return record.sources.nodeFields ?? 'none';
}

/** What the pod asked for, for the two fields `verifyInstance` compares. */
function expectedOf(record: AllocationRecord, field: NodeSideField): string | null {
  const weightField =
    record.policy === 'native-burst-share'
      ? 'compute_weight_native_burst'
      : 'compute_weight_online';
  if (field === weightField) return String(record.requested.computePercent);
  if (field === 'vmem_limit' && record.requested.memoryMiB !== null)
    return String(record.requested.memoryMiB);
  return null;
}

/**
 * One mGPU instance: every node-side field of spec §6 with where its value came from (the node
 * agent's report, the pod status, or the scheduler's annotation), and verified / drift against
 * what the pod asked for.
 */
export const InstanceDetail = memo(function InstanceDetail({
  id,
  record,
  linkTo,
}: {
  id: string;
  record: AllocationRecord | undefined;
  linkTo(change: { instance?: string; node?: string }): string;
}) {
  const { t } = useDashboardI18n();
  const source = (value: Source) => t(`allocations.source.${value}`);
  return (
    <section
      className="alloc-panel"
      aria-labelledby="alloc-instance-title"
      data-testid="instance-detail"
    >
      <div className="panel-head">
        {/* Focus lands here as the panel opens (detail-panel.tsx). */}
        <h2 id="alloc-instance-title" className="section-title" tabIndex={-1}>
          {t('allocations.instance.title', { id })}
        </h2>
        <Link to={linkTo({ instance: '' })}>{t('allocations.close')}</Link>
      </div>
      {record === undefined ? (
        <p className="muted">{t('allocations.instance.gone')}</p>
      ) : (
        <>
          <p>
            <VerificationBadge record={record} />{' '}
            <span className="muted">
              {t(`allocations.instance.verification.${record.verification}`)}
            </span>
          </p>
          <ScrollRegion label={t('allocations.instance.fields')}>
            <table className="alloc-table alloc-fields">
              <caption className="visually-hidden">{t('allocations.instance.fields')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('allocations.instance.field')}</th>
                  <th scope="col">{t('allocations.instance.value')}</th>
                  <th scope="col">{t('allocations.instance.requested')}</th>
                  <th scope="col">{t('allocations.instance.source')}</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">{t('result.col.node')}</th>
                  <td>
                    <Link to={linkTo({ node: record.node, instance: record.id })}>
                      {record.node}
                    </Link>
                  </td>
                  <td>—</td>
                  <td>{source('scheduler-annotation')}</td>
                </tr>
                <tr>
                  <th scope="row">{t('result.col.card')}</th>
                  <td>{record.card}</td>
                  <td>—</td>
                  <td>{source('scheduler-annotation')}</td>
                </tr>
                <tr>
                  <th scope="row">{t('allocations.col.compute')}</th>
                  <td>—</td>
                  <td>{formatPercent(record.requested.computePercent)}</td>
                  <td>{source('pod-spec')}</td>
                </tr>
                <tr>
                  <th scope="row">{t('allocations.col.memory')}</th>
                  <td>—</td>
                  <td>{formatMiB(record.requested.memoryMiB, t('allocations.wholeCard'))}</td>
                  <td>{source('pod-spec')}</td>
                </tr>
                <tr>
                  <th scope="row">{t('field.computePolicy')}</th>
                  <td>{record.policy ?? '—'}</td>
                  <td>—</td>
                  <td>{source('pod-spec')}</td>
                </tr>
                {NODE_SIDE_FIELDS.map((field) => {
                  const expected = expectedOf(record, field);
                  const drifted = record.drift.includes(field);
                  return (
                    <tr
                      key={field}
                      className={drifted ? 'alloc-drift' : undefined}
                      data-testid={`field-${field}`}
                    >
                      <th scope="row">
                        <code>{field}</code>
                      </th>
                      <td>{shown(record, field)}</td>
                      <td>
                        {expected === null
                          ? '—'
                          : drifted
                            ? t('allocations.instance.expectedDrift', { value: expected })
                            : expected}
                      </td>
                      <td>{source(sourceOf(record, field))}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
    </section>
  );
});
