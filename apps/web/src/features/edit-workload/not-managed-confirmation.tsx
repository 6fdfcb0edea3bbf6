import { Alert, Modal } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { type MessageKey, useI18n } from '../../i18n/i18n.js';

/** Above Apply: the workload lacks the console's managed-by label (rule `not-managed`, spec §8). */
export function NotManagedAlert() {
  const { t } = useI18n();
  return (
    <Alert
      type="warning"
      showIcon
      data-rule="not-managed"
      title={t('edit.notManaged.title')}
      description={t('edit.notManaged')}
    />
  );
}

/** What the dialog says: an apply's words by default, a scale's on the workloads list. */
export interface NotManagedTexts {
  title: MessageKey;
  body: MessageKey;
  ok: MessageKey;
}

const APPLY_TEXTS: NotManagedTexts = {
  title: 'edit.force.title',
  body: 'edit.force.body',
  ok: 'edit.force.ok',
};

/**
 * The confirmation a change to a workload the console did not make waits for: `ask()` resolves
 * true on confirm (the change is then sent with `force`), false on cancel (nothing is sent).
 */
export function useNotManagedConfirmation(
  target: { namespace: string; name: string },
  texts: NotManagedTexts = APPLY_TEXTS,
) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const answer = useRef<((confirmed: boolean) => void) | undefined>(undefined);
  const settle = (confirmed: boolean) => {
    setOpen(false);
    answer.current?.(confirmed);
    answer.current = undefined;
  };
  const ask = () =>
    new Promise<boolean>((resolve) => {
      // A second ask answers the first with no: one question open at a time.
      answer.current?.(false);
      answer.current = resolve;
      setOpen(true);
    });
  // Leaving the page is no: whoever waits on the answer is not left waiting.
  useEffect(
    () => () => {
      answer.current?.(false);
      answer.current = undefined;
    },
    [],
  );
  const dialog = (
    <Modal
      open={open}
      title={t(texts.title, target)}
      okText={t(texts.ok)}
      cancelText={t('edit.force.cancel')}
      okButtonProps={{ danger: true }}
      onOk={() => settle(true)}
      onCancel={() => settle(false)}
      destroyOnHidden
    >
      <p>{t(texts.body)}</p>
    </Modal>
  );
  return { ask, dialog };
}
