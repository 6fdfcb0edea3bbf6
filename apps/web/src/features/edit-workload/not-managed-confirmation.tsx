import { Alert, Modal } from 'antd';
import { useRef, useState } from 'react';
import { useI18n } from '../../i18n/i18n.js';

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

/**
 * The confirmation an apply to a workload the console did not make waits for: `ask()` resolves
 * true on confirm (the update is then sent with `force`), false on cancel (nothing is sent).
 */
export function useNotManagedConfirmation(target: { namespace: string; name: string }) {
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
      answer.current = resolve;
      setOpen(true);
    });
  const dialog = (
    <Modal
      open={open}
      title={t('edit.force.title', target)}
      okText={t('edit.force.ok')}
      cancelText={t('edit.force.cancel')}
      okButtonProps={{ danger: true }}
      onOk={() => settle(true)}
      onCancel={() => settle(false)}
      destroyOnHidden
    >
      <p>{t('edit.force.body')}</p>
    </Modal>
  );
  return { ask, dialog };
}
