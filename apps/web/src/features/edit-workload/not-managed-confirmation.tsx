import { Alert } from 'antd';
import { useConfirmation } from '../../components/confirmation.js';
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
  const confirmation = useConfirmation();
  const ask = () =>
    confirmation.ask({
      title: t(texts.title, target),
      body: <p>{t(texts.body)}</p>,
      ok: t(texts.ok),
      danger: true,
    });
  return { ask, dialog: confirmation.dialog };
}
