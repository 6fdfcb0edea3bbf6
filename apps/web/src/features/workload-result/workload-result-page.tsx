import { PROGRESS_STAGES, type ProgressStage, type WorkloadProgress } from '@mgpu/shared';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { Alert, Timeline } from 'antd';
import { Link, useParams } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { type Translate, useI18n } from '../../i18n/i18n.js';
import { RejectionList } from '../create-workload/rejection-list.js';
import { creatableKindOf, DeleteWorkload, deleteTargetOf } from './delete-workload.js';
import { HistoryPanel, StalledRollback } from './history-panel.js';
import { InstanceTable } from './instance-table.js';
import { PodDiagnosis } from './pod-diagnosis.js';
import { RolloutPanel } from './rollout-panel.js';
import { WorkloadHeadline } from './workload-headline.js';

const STATE_COLOR: Record<ProgressStage['state'], string> = {
  done: 'green',
  pending: 'gray',
  failed: 'red',
};

/**
 * What a stage means, worded in the operator's language from the progress's own data (pods,
 * records, replicas) rather than from the BFF's English `detail`; only the scheduler's raw
 * message is shown as it is, under a translated headline.
 */
function StageDetail({
  name,
  state,
  progress,
  t,
}: {
  name: ProgressStage['stage'];
  state: ProgressStage['state'];
  progress: WorkloadProgress;
  t: Translate;
}) {
  switch (name) {
    case 'created': {
      const uid = progress.stages.find((stage) => stage.stage === 'created')?.detail;
      return uid ? <p className="stage-detail">{t('result.uid', { uid })}</p> : null;
    }
    case 'scheduled': {
      const stuck = progress.pods.filter((pod) => pod.unschedulable !== null);
      // A pod no node takes waits (stage pending): why, per node group, in the operator's words.
      if (state !== 'done' && stuck.length > 0)
        return (
          <div className="stage-detail">
            {stuck.map((pod) => (
              <div key={pod.name} data-testid="unschedulable">
                <p>{t('result.unschedulable', { pod: pod.name })}</p>
                {pod.rejections && pod.rejections.length > 0 ? (
                  <RejectionList
                    rejections={pod.rejections}
                    listTestId="unschedulable-reasons"
                    itemTestId="unschedulable-reason"
                  />
                ) : null}
                <details>
                  <summary>{t('result.schedulerSaid')}</summary>
                  <pre>{pod.unschedulable}</pre>
                </details>
              </div>
            ))}
          </div>
        );
      const placed = progress.pods.filter((pod) => pod.node !== null);
      if (placed.length === 0) return null;
      return (
        <ul className="stage-detail">
          {placed.map((pod) => (
            <li key={pod.name}>
              {t('result.podOnNode', { pod: pod.name, node: pod.node ?? '' })}
              {Object.entries(pod.cards).map(([container, cards]) => (
                <span key={container}>
                  {' · '}
                  {t('placement.cards', { container, cards: cards.join(', ') })}
                </span>
              ))}
            </li>
          ))}
        </ul>
      );
    }
    case 'running':
      return <p className="stage-detail">{t('result.runningCount', progress.replicas)}</p>;
    case 'verified': {
      const drift = progress.records.filter((record) => record.verification === 'drift');
      if (drift.length > 0)
        return (
          <ul className="stage-detail">
            {drift.map((record) => (
              <li key={record.id}>
                {t('result.drift', {
                  pod: record.pod,
                  container: record.container,
                  card: record.card,
                  fields: record.drift.join(', '),
                })}
              </li>
            ))}
          </ul>
        );
      const unreported = progress.records.filter(
        (record) => record.verification === 'unreported',
      ).length;
      return (
        <p className="stage-detail">
          {unreported > 0
            ? t('result.unreported', { count: unreported })
            : t('result.instanceCount', { count: progress.records.length })}
        </p>
      );
    }
  }
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
              <strong>{t(`result.stage.${name}`)}</strong> <span>{t(`result.state.${state}`)}</span>
              {stage ? <StageDetail name={name} state={state} progress={progress} t={t} /> : null}
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
  const queryClient = useQueryClient();
  const { namespace = '', name = '' } = useParams();
  const options = trpc.workload.progress.subscriptionOptions(
    { namespace, name },
    {
      // Every state goes into the query cache under the subscription's key, so coming back to
      // this page shows the last known state at once while the stream reconnects.
      onData: (event) => queryClient.setQueryData<WorkloadProgress>(options.queryKey, event.data),
    },
  );
  const subscription = useSubscription(options);
  // The cache is the one source the view reads; the subscription only fills it.
  const cached = useQuery<WorkloadProgress>({
    queryKey: options.queryKey,
    queryFn: skipToken,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const progress = cached.data;

  return (
    <section className="result-page">
      <div className="result-header">
        <h1 className="page-title">{t('result.title', { namespace, name })}</h1>
        {progress ? <DeleteWorkload target={deleteTargetOf(progress)} /> : null}
      </div>
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
          {/* A stuck rollout offers its way back first (issue 27). */}
          <StalledRollback progress={progress} />
          <WorkloadHeadline progress={progress} />
          <h2 className="section-title">{t('result.timeline')}</h2>
          <ProgressTimeline progress={progress} />
          <RolloutPanel progress={progress} />
          {/* A rollback sends the version the page shows: refused if the object moved on. */}
          <HistoryPanel
            target={{
              namespace,
              name,
              kind: creatableKindOf(progress),
              resourceVersion: progress.resourceVersion,
            }}
          />
          <h2 id="instances-title" className="section-title">
            {t('result.instances')}
          </h2>
          <InstanceTable records={progress.records} labelledBy="instances-title" />
          <PodDiagnosis namespace={namespace} pods={progress.pods} />
        </>
      )}
      <p className="result-links">
        <Link to={`/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/edit`}>
          {t('result.edit')}
        </Link>{' '}
        <Link to="/workloads/new">{t('result.createAnother')}</Link>
      </p>
    </section>
  );
}
