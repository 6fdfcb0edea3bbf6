import { type ReactNode, type RefObject, useEffect, useRef, useSyncExternalStore } from 'react';

/** Below this width the panel covers the page (a drawer); from it on, it sits beside the lists. */
const BESIDE_QUERY = '(min-width: 1100px)';

/** What the panel shows: the open node's card grid, the open instance's fields ('' = closed). */
export interface OpenParts {
  node: string;
  instance: string;
}

const PARTS = ['instance', 'node'] as const;
const HEADING_OF: Record<(typeof PARTS)[number], string> = {
  instance: 'alloc-instance-title',
  node: 'alloc-node-title',
};

const subscribeBeside = (onChange: () => void) => {
  const query = window.matchMedia(BESIDE_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};

/** Whether the panel sits beside the lists (a wide screen) rather than over them. */
export function usePanelBeside(): boolean {
  return useSyncExternalStore(
    subscribeBeside,
    () => window.matchMedia(BESIDE_QUERY).matches,
    () => true,
  );
}

/** Typing in a box (the node filter names the open node): opening must not take the caret away. */
const isTextEntry = (element: Element | null): boolean =>
  element instanceof HTMLInputElement ||
  element instanceof HTMLSelectElement ||
  element instanceof HTMLTextAreaElement;

/** The row that opens a part, when what opened it is gone (a deep link, a re-drawn row). */
function rowLinkOf(part: (typeof PARTS)[number], value: string): HTMLElement | null {
  const selector =
    part === 'node'
      ? `[data-testid="node-row"][data-node="${CSS.escape(value)}"] a`
      : `[data-testid="instance-row"][data-record="${CSS.escape(value)}"] td:last-child a`;
  return document.querySelector<HTMLElement>(selector);
}

/**
 * Focus follows the panel: a part that opens takes focus on its heading (unless the operator is
 * typing in a filter box), and a part that closes gives it back to what opened it — the row's
 * link — so a keyboard user lands where they were, not at the top of the page.
 */
export function usePanelFocus(panel: RefObject<HTMLElement | null>, open: OpenParts): void {
  const before = useRef<OpenParts>({ node: '', instance: '' });
  const openers = useRef<Record<(typeof PARTS)[number], HTMLElement | null>>({
    node: null,
    instance: null,
  });
  const { node, instance } = open;
  useEffect(() => {
    const now = { node, instance };
    const was = before.current;
    before.current = now;
    const active = document.activeElement;
    for (const part of PARTS) {
      if (!now[part] || now[part] === was[part]) continue;
      // Under a drawer the page went inert with this render and the link lost focus to the
      // body: then the row's link is found again as the part closes.
      openers.current[part] =
        active instanceof HTMLElement && active !== document.body ? active : null;
      // Scrolls the drawer (or the panel) to the heading if it is out of view: a holder low in
      // the card grid opens its instance at the panel's top.
      if (!isTextEntry(active)) document.getElementById(HEADING_OF[part])?.focus();
      return;
    }
    for (const part of PARTS) {
      if (now[part] || !was[part]) continue;
      // Focus left with the closed part (it was inside it): give it back.
      const lost = active === null || active === document.body || !active.isConnected;
      if (!lost && !panel.current?.contains(active)) continue;
      const opener = openers.current[part];
      const target = opener?.isConnected ? opener : rowLinkOf(part, was[part]);
      (target ?? document.getElementById(HEADING_OF.node))?.focus();
      openers.current[part] = null;
    }
  }, [node, instance, panel]);
}

/**
 * Where the open node's card grid and the open instance's fields are shown: beside the lists on
 * a wide screen, sticky at the top of the viewport and scrolling on its own; over the whole page
 * on a narrow one, as a drawer. Never below the lists, 2,500 px from the row that opened it
 * (issue 29). Escape closes the innermost part.
 */
export function DetailPanel({
  panelRef,
  open,
  onClose,
  children,
}: {
  panelRef: RefObject<HTMLDivElement | null>;
  open: OpenParts;
  onClose(part: keyof OpenParts): void;
  children: ReactNode;
}) {
  const innermost = open.instance ? 'instance' : 'node';
  useEffect(() => {
    const panel = panelRef.current;
    if (!panel) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      onClose(innermost);
    };
    panel.addEventListener('keydown', onKey);
    return () => panel.removeEventListener('keydown', onKey);
  }, [panelRef, onClose, innermost]);
  return (
    <div ref={panelRef} className="alloc-detail" data-testid="detail-panel">
      {children}
    </div>
  );
}
