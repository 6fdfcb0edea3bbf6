import { useSyncExternalStore } from 'react';

/**
 * Below this width a wide table is laid out as a list of cards (a phone, a narrow window); the
 * shell's menu folds at the same width.
 */
export const NARROW_SCREEN = '(max-width: 767.98px)';

function subscribe(onChange: () => void): () => void {
  const query = globalThis.matchMedia?.(NARROW_SCREEN);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

const isNarrow = () => globalThis.matchMedia?.(NARROW_SCREEN).matches ?? false;

/** Whether the screen is narrow now; re-renders when a rotation or resize crosses the width. */
export function useNarrowScreen(): boolean {
  // The build's prerender has no screen: it renders the laptop layout.
  return useSyncExternalStore(subscribe, isNarrow, () => false);
}
