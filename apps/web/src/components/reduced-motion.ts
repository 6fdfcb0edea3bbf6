import { useSyncExternalStore } from 'react';

const QUERY = '(prefers-reduced-motion: reduce)';

const subscribe = (changed: () => void) => {
  const media = window.matchMedia(QUERY);
  media.addEventListener('change', changed);
  return () => media.removeEventListener('change', changed);
};

/**
 * Whether the operator asked their system for less motion. antd's dialogs and drawers zoom and
 * slide unless told otherwise; an operator who asked for none gets none (and a click on a dialog
 * that is still zooming in no longer lands beside its button).
 */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(QUERY).matches,
    () => false,
  );
}
