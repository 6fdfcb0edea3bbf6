import type { RequestVerdict } from '@mgpu/shared';
import type { Translate } from '../../i18n/i18n.js';

export type WaitingVerdict = Extract<RequestVerdict, { verdict: 'waiting' }>;

/** The replicas a waiting verdict names, in words: "副本 2" or "副本 2–4". */
export function waitingReplicas(t: Translate, verdict: WaitingVerdict): string {
  const last = verdict.firstWaiting + verdict.waitingCount - 1;
  return last === verdict.firstWaiting
    ? t('verdict.replica', { n: verdict.firstWaiting })
    : t('verdict.replicas', { from: verdict.firstWaiting, to: last });
}

/**
 * The submit row's words (spec §9): placeable now (`ready`, the create or apply form's own
 * words), valid but waiting (which replicas), refused by the rules (the messages themselves are
 * listed above the row), not yet known while the preview answers, or not known at all when the
 * preview failed (`checkFailed`): then the send asks first, as for a waiting one.
 */
export function verdictSentence(
  t: Translate,
  verdict: RequestVerdict | undefined,
  ready: string,
  checkFailed = false,
): string {
  if (verdict === undefined) return t(checkFailed ? 'verdict.unchecked' : 'verdict.checking');
  switch (verdict.verdict) {
    case 'waiting':
      return t('verdict.waiting', { replicas: waitingReplicas(t, verdict) });
    case 'invalid':
      return t('verdict.invalid');
    case 'placeable':
      return ready;
  }
}
