import { useConfirmation } from '../../components/confirmation.js';
import { useI18n } from '../../i18n/i18n.js';
import { RejectionList } from './rejection-list.js';
import { type WaitingVerdict, waitingReplicas } from './verdict-line.js';

/** What is about to be sent: a create, an apply (edit) or a scale; it names the confirm button. */
export type WaitingAction = 'create' | 'apply' | 'scale';

function WaitingBody({ verdict }: { verdict: WaitingVerdict }) {
  const { t } = useI18n();
  return (
    <div data-testid="waiting-confirmation">
      <p>{t('verdict.waiting', { replicas: waitingReplicas(t, verdict) })}</p>
      <p>{t('waiting.why')}</p>
      {/* Closest group first, the ones the operator's own choices rule out folded (issue 27). */}
      <RejectionList
        rejections={verdict.rejections}
        listTestId="waiting-reasons"
        itemTestId="waiting-reason"
      />
      <p>{t('waiting.after')}</p>
    </div>
  );
}

/**
 * The question a valid-but-waiting create, apply or scale waits for (spec §9): which replicas
 * will stay Pending and why, confirmed with `仍然创建` / `Create anyway` (apply, scale alike);
 * `ask` resolves false on cancel, and then nothing is sent. The API itself never asks. A check
 * that failed asks too (`askUnchecked`): failing open would send a waiting request unasked.
 */
export function useWaitingConfirmation(action: WaitingAction) {
  const { t } = useI18n();
  const confirmation = useConfirmation();
  const ask = (verdict: WaitingVerdict, target: { namespace: string; name: string }) =>
    confirmation.ask({
      title: t('waiting.title', target),
      body: <WaitingBody verdict={verdict} />,
      ok: t(`waiting.ok.${action}`),
    });
  /**
   * When the check itself failed: nothing says whether a node takes it, so the send is not
   * silent either — the same question, naming the failed check instead of the replicas.
   */
  const askUnchecked = (failure: unknown, target: { namespace: string; name: string }) =>
    confirmation.ask({
      title: t('waiting.uncheckedTitle', target),
      body: (
        <p data-testid="waiting-unchecked">
          {t('waiting.uncheckedBody', {
            message: failure instanceof Error ? failure.message : String(failure),
          })}
        </p>
      ),
      ok: t(`waiting.ok.${action}`),
    });
  return { ask, askUnchecked, dialog: confirmation.dialog };
}
