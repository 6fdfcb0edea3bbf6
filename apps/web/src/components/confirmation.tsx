import { lazy, type ReactNode, Suspense, useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n.js';

// antd's dialog loads with the first question, not with the form: the create page's first
// bundle stays free of antd's theme runtime (docs/performance.md, the form's budgets).
const Modal = lazy(() => import('./confirmation-modal.js'));

/** What one question says: its title, body and confirm button; `danger` reddens the button. */
export interface ConfirmationContent {
  title: string;
  body: ReactNode;
  ok: string;
  danger?: boolean;
}

/**
 * A question an action waits for, in a dialog (`role="dialog"`): `ask(content)` resolves true on
 * confirm, false on cancel — then the caller sends nothing. The not-managed confirmation and the
 * waiting confirmation (spec §9) are both this one dialog with their own words.
 */
export function useConfirmation() {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  // Confirmed: what follows (the page after a create, the list after a scale) takes focus, so
  // the dialog does not hand it back to the button that opened it; cancelled: it does.
  const [confirmed, setConfirmed] = useState(false);
  const [content, setContent] = useState<ConfirmationContent>();
  const answer = useRef<((confirmed: boolean) => void) | undefined>(undefined);
  const settle = (accepted: boolean) => {
    setOpen(false);
    setConfirmed(accepted);
    answer.current?.(accepted);
    answer.current = undefined;
  };
  const ask = (next: ConfirmationContent) =>
    new Promise<boolean>((resolve) => {
      // A second ask answers the first with no: one question open at a time.
      answer.current?.(false);
      answer.current = resolve;
      setContent(next);
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
  const dialog =
    content === undefined ? null : (
      <Suspense fallback={null}>
        <Modal
          open={open}
          title={content?.title}
          okText={content?.ok}
          cancelText={t('edit.force.cancel')}
          okButtonProps={{ danger: content?.danger ?? false }}
          onOk={() => settle(true)}
          onCancel={() => settle(false)}
          destroyOnHidden
          focusTriggerAfterClose={!confirmed}
        >
          {content.body}
        </Modal>
      </Suspense>
    );
  return { ask, dialog };
}
