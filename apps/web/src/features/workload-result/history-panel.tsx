import type {
  CreatableKind,
  RolloutStall,
  WorkloadProgress,
  WorkloadRequest,
  WorkloadRevision,
} from '@mgpu/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Modal, Tag } from 'antd';
import { useState } from 'react';
import { refusalOf } from '../../app/mutation-failure.js';
import { useTRPC } from '../../app/trpc.js';
import { sentenceWithFigures } from '../../components/figure-text.js';
import { formatDateTime } from '../../i18n/format.js';
import { type MessageKey, type Translate, useI18n } from '../../i18n/i18n.js';
import {
  type NotManagedTexts,
  useNotManagedConfirmation,
} from '../edit-workload/not-managed-confirmation.js';
import { creatableKindOf } from './delete-workload.js';

/** The workload whose revisions are shown, and the version the page read it at (if it did). */
export interface HistoryTarget {
  namespace: string;
  name: string;
  kind?: CreatableKind | undefined;
  /**
   * The version the page shows (the edit page's read, the result page's `workload.progress`):
   * sent with the rollback, which is refused (`conflict`) once the object moved on. Without one
   * (an older BFF) nothing can be rolled back from the page.
   */
  resourceVersion: string | undefined;
}

/** The not-managed question in a rollback's words. */
const ROLLBACK_NOT_MANAGED: NotManagedTexts = {
  title: 'history.force.title',
  body: 'history.force.body',
  ok: 'history.force.ok',
};

/** The revisions Kubernetes keeps (`workload.history`), re-read while the page is open. */
function useHistory(target: HistoryTarget) {
  const trpc = useTRPC();
  const { lang } = useI18n();
  const { namespace, name, kind } = target;
  return useQuery({
    ...trpc.workload.history.queryOptions({ namespace, name, lang, ...(kind ? { kind } : {}) }),
    // A rollout renumbers revisions as the controller acts: follow it without a reload.
    refetchInterval: 3000,
  });
}

/**
 * `workload.rollback` of one revision, through the update path, from the version the page shows;
 * `onDone` after it landed. A workload the console did not make is refused (`not-managed`, spec
 * §8): the operator is asked, and only on confirm it is sent again with `force`. Render `dialog`.
 */
function useRollback(target: HistoryTarget, onDone?: () => void) {
  const trpc = useTRPC();
  const { lang } = useI18n();
  const queryClient = useQueryClient();
  const rollback = useMutation(trpc.workload.rollback.mutationOptions());
  const notManaged = useNotManagedConfirmation(target, ROLLBACK_NOT_MANAGED);
  const [failure, setFailure] = useState<string>();
  const { namespace, name, kind, resourceVersion } = target;
  const send = async (revision: number, force = false): Promise<boolean> => {
    setFailure(undefined);
    if (resourceVersion === undefined) return false;
    try {
      await rollback.mutateAsync({
        namespace,
        name,
        revision,
        resourceVersion,
        force,
        lang,
        ...(kind ? { kind } : {}),
      });
    } catch (error) {
      const refusal = refusalOf(error);
      if (!force && refusal.rule === 'not-managed')
        return (await notManaged.ask()) ? send(revision, true) : false;
      setFailure(refusal.message);
      return false;
    }
    await queryClient.invalidateQueries(trpc.workload.history.pathFilter());
    onDone?.();
    return true;
  };
  return {
    send,
    pending: rollback.isPending,
    failure,
    dialog: notManaged.dialog,
    ready: resourceVersion !== undefined,
  };
}

/**
 * A revision's main fields per container: image, compute, memory, cards and model. `figure` marks
 * a value with its unit, which the list keeps on one line (`sentenceWithFigures`).
 */
function revisionSummary(
  request: WorkloadRequest,
  t: Translate,
  figure: (text: string) => string = (text) => text,
): string {
  return request.containers
    .map((container) => {
      const gpu = container.gpu;
      const parts = [container.image];
      if (gpu?.compute) parts.push(`${t('field.compute')} ${gpu.compute}`);
      if (gpu?.memoryGiB) parts.push(`${t('field.memory')} ${figure(`${gpu.memoryGiB} GiB`)}`);
      if (gpu?.cards !== undefined) parts.push(`${t('field.cards')} ${gpu.cards}`);
      if (gpu?.model) parts.push(gpu.model);
      return `${container.name}: ${parts.join(' · ')}`;
    })
    .join('; ');
}

/**
 * The revisions a workload keeps, newest first: each with its date, its main fields, a tag on
 * the current one and `Roll back` on the others, confirmed in a dialog that names the revision.
 * A Job keeps none (Kubernetes has no rollback for it): the panel says so.
 */
export function HistoryPanel({
  target,
  onRolledBack,
}: {
  target: HistoryTarget;
  onRolledBack?: () => void;
}) {
  const { t, lang } = useI18n();
  const history = useHistory(target);
  const [chosen, setChosen] = useState<WorkloadRevision>();
  const rollback = useRollback(target, () => {
    setChosen(undefined);
    onRolledBack?.();
  });
  const revisions = history.data ?? [];
  return (
    <section className="history-panel" aria-labelledby="history-title" data-testid="history">
      <h2 id="history-title" className="section-title">
        {t('history.title')}
      </h2>
      {history.error ? (
        <Alert
          type="error"
          showIcon
          title={t('history.loadFailed', { message: history.error.message })}
        />
      ) : !history.data ? (
        <p className="loading">{t('history.loading')}</p>
      ) : revisions.length === 0 ? (
        <p className="muted">{t('history.none')}</p>
      ) : (
        <ul className="history-revisions">
          {revisions.map((revision) => (
            <li
              key={revision.revision}
              data-revision={revision.revision}
              data-current={revision.current}
            >
              <strong>{t('history.revision', { revision: revision.revision })}</strong>{' '}
              {revision.current ? <Tag color="green">{t('history.current')}</Tag> : null}
              {revision.createdAt ? (
                <span className="muted">{formatDateTime(lang, revision.createdAt)} </span>
              ) : null}
              <span>
                {sentenceWithFigures((figure) => revisionSummary(revision.request, t, figure))}
              </span>{' '}
              {revision.current ? null : (
                <Button size="small" disabled={!rollback.ready} onClick={() => setChosen(revision)}>
                  {t('history.rollback')}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      <Modal
        open={chosen !== undefined}
        title={t('history.confirm.title', { revision: chosen?.revision ?? 0 })}
        okText={t('history.rollback')}
        cancelText={t('history.cancel')}
        confirmLoading={rollback.pending}
        onOk={() => {
          if (chosen) void rollback.send(chosen.revision);
        }}
        onCancel={() => setChosen(undefined)}
        destroyOnHidden
      >
        {chosen ? (
          <p>
            {t('history.confirm.body', {
              revision: chosen.revision,
              fields: revisionSummary(chosen.request, t),
            })}
          </p>
        ) : null}
        {rollback.failure ? (
          <Alert type="error" showIcon title={t('history.failed', { message: rollback.failure })} />
        ) : null}
      </Modal>
      {rollback.dialog}
    </section>
  );
}

/** The stall's own headline per reason (`workloadState`'s, from `readRollout`): one for each. */
const STALL_TITLES: Record<RolloutStall, MessageKey> = {
  unschedulable: 'history.stalled.title.unschedulable',
  'quota-refused': 'history.stalled.title.quota-refused',
  'progress-deadline': 'history.stalled.title.progress-deadline',
  'create-refused': 'history.stalled.title.create-refused',
};

/**
 * A stuck rollout, said first: only when the workload's one state (`workloadState`) is stalled —
 * new pods that merely wait for a node, with no old ones, are pending, not stuck. One click rolls
 * back to the revision before the current one, from the version the page shows; the page then
 * follows the workload back to Running through its progress stream.
 */
export function StalledRollback({ progress }: { progress: WorkloadProgress }) {
  const { t } = useI18n();
  const kind = creatableKindOf(progress);
  const target = {
    namespace: progress.namespace,
    name: progress.name,
    kind,
    resourceVersion: progress.resourceVersion,
  };
  const stalled = progress.state?.state === 'stalled' ? progress.state : undefined;
  const history = useHistory(target);
  const rollback = useRollback(target);
  if (!stalled) return null;
  const previous = (history.data ?? []).find((revision) => !revision.current);
  const titleKey =
    stalled.reason !== null && Object.hasOwn(STALL_TITLES, stalled.reason)
      ? STALL_TITLES[stalled.reason as RolloutStall]
      : undefined;
  return (
    <>
      <Alert
        type="error"
        showIcon
        className="stalled-rollback"
        data-testid="stalled-rollback"
        data-reason={stalled.reason ?? ''}
        title={titleKey ? t(titleKey) : t('workloadState.stalled')}
        description={
          <>
            <p>
              {history.error
                ? t('history.loadFailed', { message: history.error.message })
                : !history.data
                  ? t('history.loading')
                  : previous
                    ? t('history.stalled.body', {
                        revision: previous.revision,
                        fields: revisionSummary(previous.request, t),
                      })
                    : t('history.stalled.noPrevious')}
            </p>
            {rollback.failure ? (
              <p className="form-alert">{t('history.failed', { message: rollback.failure })}</p>
            ) : null}
          </>
        }
        action={
          previous ? (
            <Button
              type="primary"
              danger
              disabled={!rollback.ready}
              loading={rollback.pending}
              onClick={() => void rollback.send(previous.revision)}
            >
              {t('history.rollback')}
            </Button>
          ) : null
        }
      />
      {rollback.dialog}
    </>
  );
}
