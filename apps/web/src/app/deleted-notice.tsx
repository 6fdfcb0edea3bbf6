import { useLocation } from 'react-router';
import { useI18n } from '../i18n/i18n.js';

/** What a delete removed; it travels in the router state of the page the operator lands on. */
export interface DeletedNotice {
  kind: string;
  namespace: string;
  name: string;
}

function deletedOf(state: unknown): DeletedNotice | undefined {
  if (typeof state !== 'object' || state === null || !('deleted' in state)) return undefined;
  return (state as { deleted?: DeletedNotice }).deleted;
}

/**
 * "Deployment default/demo was deleted" on whichever page a delete leads to. It belongs to that
 * history entry, so it goes when the operator moves on and comes back with Back.
 */
export function DeletedNoticeBanner() {
  const { t } = useI18n();
  const deleted = deletedOf(useLocation().state);
  if (!deleted) return null;
  return (
    // Not a live region itself: the layout's one live region says the same words on arrival
    // (mutation-outcome.tsx), so a screen reader hears them once.
    <p className="deleted-notice">{t('notice.deleted', { ...deleted })}</p>
  );
}
