import type { RejectionCode } from '@mgpu/shared';
import type { MessageKey, Translate } from './i18n.js';

/** Every placement rejection code has a catalog key: a code without one does not compile. */
const rejectionKey = (code: RejectionCode): MessageKey => `rejection.${code}` as const;

interface WordedRejection {
  group: string;
  nodes: readonly string[];
  code: RejectionCode;
  params: Readonly<Record<string, string | number | undefined>>;
}

/** One rejection in the operator's language, from its code and parameters (not the English message). */
export function rejectionText(t: Translate, rejection: WordedRejection): string {
  const params: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(rejection.params))
    if (value !== undefined) params[name] = value;
  const reason = t(rejectionKey(rejection.code), params);
  // A rejection of the pod itself holds for every node: no group or count to name.
  if (rejection.group === 'pod') return reason;
  return t('placement.rejection', {
    count: rejection.nodes.length,
    group: rejection.group,
    message: reason,
  });
}
