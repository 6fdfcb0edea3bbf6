import { QUOTA_CORE, QUOTA_MEMORY } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../app/trpc.js';
import { useI18n } from '../../i18n/i18n.js';
import { useDraft } from './draft-store.js';

/** Pods of other workloads change what a quota has used; re-read it while the form is open. */
const QUOTA_REFRESH_MS = 10_000;

/** Percent of one card as cards: an integer over 100 prints exactly (120 → "1.2"). */
const cards = (percent: number) => String(percent / 100);

/**
 * Under 命名空间: the namespace's ResourceQuotas on mGPU resources, used / limit. The preview's
 * `quota-exceeded` says when this request would not fit; this says how much room there is before
 * anything is typed. Nothing when the namespace has no such quota.
 */
export function NamespaceQuota() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const namespace = useDraft((draft) => draft.request?.namespace);
  const quotas = useQuery({
    ...trpc.cluster.quotas.queryOptions(),
    refetchInterval: QUOTA_REFRESH_MS,
  });
  const shown = (quotas.data ?? []).filter((quota) => quota.namespace === namespace);
  if (namespace === undefined || shown.length === 0) return null;
  return (
    <ul className="field-hint namespace-quota" data-testid="namespace-quota">
      {shown.map((quota) => (
        <li key={quota.name}>
          {t('form.quota', {
            namespace,
            quota: quota.name,
            items: quota.resources
              .map((resource) =>
                resource.resource === QUOTA_CORE
                  ? t('form.quota.compute', {
                      used: cards(resource.used),
                      limit: cards(resource.limit),
                    })
                  : resource.resource === QUOTA_MEMORY
                    ? t('form.quota.memory', { used: resource.used, limit: resource.limit })
                    : '',
              )
              .filter((item) => item !== '')
              .join(t('form.quota.separator')),
          })}
        </li>
      ))}
    </ul>
  );
}
