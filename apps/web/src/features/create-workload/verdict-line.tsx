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
 * The submit row's words for a request its rules accept (spec §9): placeable now (`ready`, the
 * create or apply form's own words), valid but waiting (which replicas), or not yet known while
 * the preview answers. An invalid verdict's words are its rules' messages, said before this.
 */
export function verdictSentence(
  t: Translate,
  verdict: RequestVerdict | undefined,
  ready: string,
): string {
  if (verdict === undefined) return t('verdict.checking');
  if (verdict.verdict === 'waiting')
    return t('verdict.waiting', { replicas: waitingReplicas(t, verdict) });
  return ready;
}
