import { isCreatableKind, type WorkloadSummary } from '@mgpu/shared';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../../app/trpc.js';
import { useI18n } from '../../i18n/i18n.js';
import { waitingReplicas } from '../create-workload/verdict-line.js';
import { useWaitingConfirmation } from '../create-workload/waiting-confirmation.js';

/**
 * The scale's verdict (spec §9) for the count typed in: `workload.scalePreview` places only the
 * replicas the scale adds, beside the running pods. `words` say it under the box; `confirm()`
 * asks afresh just before sending and, when some added replicas would wait for a node, opens the
 * `仍然扩容` / `Scale anyway` dialog: false means nothing is sent.
 */
export function useScaleVerdict(item: WorkloadSummary, replicas: number | undefined) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const waiting = useWaitingConfirmation('scale');
  const inputFor = (count: number) => ({
    namespace: item.namespace,
    name: item.name,
    // The listed kind, so a Deployment and a Job of one name are never confused.
    kind: isCreatableKind(item.kind) ? item.kind : undefined,
    replicas: count,
    lang,
  });
  const asked = replicas !== undefined && replicas !== item.replicas;
  const preview = useQuery(
    trpc.workload.scalePreview.queryOptions(asked ? inputFor(replicas) : skipToken),
  );
  let words: string | undefined;
  const verdict = preview.data?.verdict;
  if (!asked) words = undefined;
  else if (preview.error) words = t('verdict.unchecked');
  else if (verdict === undefined) words = t('verdict.scale.checking');
  else if (verdict.verdict === 'invalid') words = preview.data?.errors[0]?.message;
  else if (verdict.verdict === 'waiting')
    words = t('verdict.waiting', { replicas: waitingReplicas(t, verdict) });
  else words = verdict.replicas === 0 ? t('verdict.scale.nothing') : t('verdict.scale.placeable');

  const confirm = async (count: number): Promise<boolean> => {
    // Asked again for exactly what is sent; a check that fails asks too, rather than scaling
    // unasked what might wait for a node.
    const asked = await queryClient
      .fetchQuery(trpc.workload.scalePreview.queryOptions(inputFor(count)))
      .then(
        (fresh) => ({ fresh, failure: undefined }),
        (failure: unknown) => ({ fresh: undefined, failure }),
      );
    if (asked.fresh === undefined) return waiting.askUnchecked(asked.failure, item);
    if (asked.fresh.verdict.verdict !== 'waiting') return true;
    return waiting.ask(asked.fresh.verdict, item);
  };
  const shown = verdict?.verdict ?? (preview.error ? 'unchecked' : undefined);
  return { words, verdict: asked ? shown : undefined, confirm, dialog: waiting.dialog };
}
