import { CREATABLE_KINDS, type CreatableKind, type WorkloadProgress } from '@mgpu/shared';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Modal } from 'antd';
import { useState } from 'react';
import type { DeletedNotice } from '../../app/deleted-notice.js';
import { refusalOf } from '../../app/mutation-failure.js';
import { useMutationOutcome } from '../../app/mutation-outcome.js';
import { useTRPC } from '../../app/trpc.js';
import { useI18n } from '../../i18n/i18n.js';

/** What a confirmation names when it does not know the kind (an older BFF's progress has none). */
const DEFAULT_KIND = 'Deployment';

/** The kind `workload.progress` read, as the console's procedures take it (they make these three). */
export const creatableKindOf = (progress: WorkloadProgress): CreatableKind | undefined =>
  CREATABLE_KINDS.find((kind) => kind === progress.kind);

/** The workload a delete confirmation names: what goes, and what it frees. */
export interface DeleteTarget {
  namespace: string;
  name: string;
  /** The listed kind, sent so a Deployment and a Job of one name are never confused. */
  kind?: CreatableKind;
  exists: boolean;
  pods: number;
  /** Cards its pods hold; undefined when not known (the confirmation then says so, not "0"). */
  cards: number | undefined;
}

/** Which confirmation is open: the ordinary one, or the second one before a forced delete. */
type Step = 'closed' | 'confirm' | 'force';

/** The mGPU cards the workload's instances sit on (one card can hold several of its instances). */
const cardsHeld = (progress: WorkloadProgress) =>
  new Set(progress.records.map((record) => `${record.node}/${record.card}`)).size;

/** The result page's workload as a delete target. */
export const deleteTargetOf = (progress: WorkloadProgress): DeleteTarget => {
  const kind = creatableKindOf(progress);
  return {
    namespace: progress.namespace,
    name: progress.name,
    ...(kind ? { kind } : {}),
    exists: progress.exists,
    pods: progress.pods.length,
    cards: cardsHeld(progress),
  };
};

/**
 * Delete, with a confirmation that names what goes. The BFF refuses objects the console did not
 * make (rule `not-managed`, spec §8); only then a second, different confirmation offers `force`.
 */
export function DeleteWorkload({
  target,
  onDeleted,
}: {
  target: DeleteTarget;
  /** Instead of going to the dashboard (the list stays where it is). */
  onDeleted?: () => void;
}) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const outcome = useMutationOutcome();
  const remove = useMutation(trpc.workload.delete.mutationOptions());
  const [step, setStep] = useState<Step>('closed');
  // Once deleted, the dialog gives focus to the heading of what follows, not back to the button.
  const [deletedNow, setDeletedNow] = useState(false);
  // The server's reason for the refusal that led to the second confirmation; the last failure.
  const [notManagedReason, setNotManagedReason] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const { namespace, name, kind } = target;
  const what = {
    kind: kind ?? DEFAULT_KIND,
    namespace,
    name,
    pods: target.pods,
    cards: target.cards ?? '?',
  };

  const close = () => {
    setStep('closed');
    setNotManagedReason(undefined);
    setFailure(undefined);
    remove.reset();
  };
  const send = async (force: boolean) => {
    setFailure(undefined);
    try {
      await remove.mutateAsync({ namespace, name, force, lang, ...(kind ? { kind } : {}) });
    } catch (error) {
      const answer = refusalOf(error);
      if (!force && answer.rule === 'not-managed') {
        setNotManagedReason(answer.message);
        setStep('force');
      } else setFailure(answer.message);
      return;
    }
    const deleted: DeletedNotice = { kind: what.kind, namespace, name };
    setDeletedNow(true);
    if (onDeleted) {
      close();
      onDeleted();
      outcome.completed(t('notice.deleted', deleted));
      return;
    }
    // The dashboard shows the freed cards; the notice says what went.
    outcome.completed(t('notice.deleted', deleted), '/allocations', { deleted });
  };

  return (
    <>
      {/* Offered while the workload exists; a confirmation already open stays, so a delete
          someone else made meanwhile is answered by the server, not by a vanishing dialog. */}
      {target.exists ? (
        <Button
          danger
          onClick={() => {
            setDeletedNow(false);
            setStep('confirm');
          }}
        >
          {t('delete.button')}
        </Button>
      ) : null}
      <Modal
        open={step === 'confirm'}
        title={t('delete.confirm.title', what)}
        okText={t('delete.confirm.ok')}
        cancelText={t('delete.cancel')}
        okButtonProps={{ danger: true }}
        confirmLoading={remove.isPending}
        onOk={() => void send(false)}
        onCancel={close}
        destroyOnHidden
        focusTriggerAfterClose={!deletedNow}
      >
        <p>
          {t(
            target.cards === undefined ? 'delete.confirm.bodyCardsUnknown' : 'delete.confirm.body',
            what,
          )}
        </p>
        {failure ? (
          <Alert type="error" showIcon title={t('delete.failed', { message: failure })} />
        ) : null}
      </Modal>
      <Modal
        open={step === 'force'}
        title={t('delete.force.title', what)}
        okText={t('delete.force.ok')}
        cancelText={t('delete.cancel')}
        okButtonProps={{ danger: true, type: 'primary' }}
        confirmLoading={remove.isPending}
        onOk={() => void send(true)}
        onCancel={close}
        destroyOnHidden
        focusTriggerAfterClose={!deletedNow}
      >
        {notManagedReason ? <Alert type="warning" showIcon title={notManagedReason} /> : null}
        <p>{t('delete.force.body', what)}</p>
        {failure ? (
          <Alert type="error" showIcon title={t('delete.failed', { message: failure })} />
        ) : null}
      </Modal>
    </>
  );
}
