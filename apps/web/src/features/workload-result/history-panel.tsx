import type {
  CreatableKind,
  RuleError,
  WorkloadProgress,
  WorkloadRequest,
  WorkloadRevision,
} from '@mgpu/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { Alert, Button, Modal, Tag } from 'antd';
import { useState } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { type Translate, useI18n } from '../../i18n/i18n.js';

/** The workload whose revisions are shown, and the version the page read it at (if it did). */
export interface HistoryTarget {
  namespace: string;
  name: string;
  kind?: CreatableKind | undefined;
  /**
   * The edit page's resourceVersion: a rollback from it is refused (`conflict`) once the object
   * moved on. The result page reads none, so the version is read when the operator confirms.
   */
  resourceVersion?: string | undefined;
}

/** The server's own words for a refused rollback: its first rule error, else the error itself. */
function refusalOf(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const first = (error.data as { ruleErrors?: RuleError[] } | undefined)?.ruleErrors?.[0];
    if (first) return first.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The revisions Kubernetes keeps (`workload.history`), re-read while the page is open. */
function useHistory(target: HistoryTarget) {
  const trpc = useTRPC();
  const { namespace, name, kind } = target;
  return useQuery({
    ...trpc.workload.history.queryOptions({ namespace, name, ...(kind ? { kind } : {}) }),
    // A rollout renumbers revisions as the controller acts: follow it without a reload.
    refetchInterval: 3000,
  });
}

/** `workload.rollback` of one revision, through the update path; `onDone` after it landed. */
function useRollback(target: HistoryTarget, onDone?: () => void) {
  const trpc = useTRPC();
  const { lang } = useI18n();
  const queryClient = useQueryClient();
  const rollback = useMutation(trpc.workload.rollback.mutationOptions());
  const [failure, setFailure] = useState<string>();
  const { namespace, name, kind } = target;
  const send = async (revision: number): Promise<boolean> => {
    setFailure(undefined);
    try {
      const resourceVersion =
        target.resourceVersion ??
        (
          await queryClient.fetchQuery({
            ...trpc.workload.get.queryOptions({ namespace, name, ...(kind ? { kind } : {}) }),
            staleTime: 0,
          })
        ).resourceVersion;
      await rollback.mutateAsync({
        namespace,
        name,
        revision,
        resourceVersion,
        lang,
        ...(kind ? { kind } : {}),
      });
    } catch (error) {
      setFailure(refusalOf(error));
      return false;
    }
    await queryClient.invalidateQueries(trpc.workload.history.pathFilter());
    onDone?.();
    return true;
  };
  return { send, pending: rollback.isPending, failure };
}

/** A revision's main fields per container: image, compute, memory, cards and model. */
function revisionSummary(request: WorkloadRequest, t: Translate): string {
  return request.containers
    .map((container) => {
      const gpu = container.gpu;
      const parts = [container.image];
      if (gpu?.compute) parts.push(`${t('field.compute')} ${gpu.compute}`);
      if (gpu?.memoryGiB) parts.push(`${t('field.memory')} ${gpu.memoryGiB} GiB`);
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
                <span className="muted">{new Date(revision.createdAt).toLocaleString(lang)} </span>
              ) : null}
              <span>{revisionSummary(revision.request, t)}</span>{' '}
              {revision.current ? null : (
                <Button size="small" onClick={() => setChosen(revision)}>
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
    </section>
  );
}

/**
 * A stuck rollout, said first: the new pods wait for a node while the old ones hold their cards.
 * One click rolls back to the revision before the current one; the page then follows the
 * workload back to Running through its progress stream.
 */
export function StalledRollback({ progress }: { progress: WorkloadProgress }) {
  const { t } = useI18n();
  const target = { namespace: progress.namespace, name: progress.name };
  const history = useHistory(target);
  const rollback = useRollback(target);
  if (progress.rollout?.state !== 'stalled') return null;
  const previous = (history.data ?? []).find((revision) => !revision.current);
  return (
    <Alert
      type="error"
      showIcon
      className="stalled-rollback"
      data-testid="stalled-rollback"
      title={t('history.stalled.title')}
      description={
        <>
          <p>
            {previous
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
            loading={rollback.pending}
            onClick={() => void rollback.send(previous.revision)}
          >
            {t('history.rollback')}
          </Button>
        ) : null
      }
    />
  );
}
