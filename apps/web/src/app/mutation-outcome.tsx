import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useLocation, useNavigate } from 'react-router';

/** Router state a mutation leaves on the page it leads to: what to say there. */
interface OutcomeState {
  outcome?: string;
}

const outcomeOf = (state: unknown): string | undefined =>
  typeof state === 'object' && state !== null && 'outcome' in state
    ? (state as OutcomeState).outcome
    : undefined;

/** How long a page that is still loading may take to show its heading before focus gives up. */
const HEADING_WAIT_MS = 10_000;

/**
 * Focuses the page's heading (`main h1`) once it is shown: a lazily loaded page draws it a
 * moment after the route changes. Runs after the current render, so a dialog that is closing
 * no longer holds focus inside itself.
 */
function focusPageHeading(): () => void {
  let observer: MutationObserver | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    observer?.disconnect();
    if (timer !== undefined) clearTimeout(timer);
  };
  const tryFocus = () => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (!heading) return false;
    // Focusable from script only: a heading is not a stop in the Tab order.
    if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    heading.focus();
    // A page still hidden behind a loading fallback takes no focus: wait for the shown one.
    return document.activeElement === heading;
  };
  const frame = requestAnimationFrame(() => {
    if (tryFocus()) return;
    const main = document.querySelector('main');
    if (!main) return;
    observer = new MutationObserver(() => {
      if (tryFocus()) stop();
    });
    observer.observe(main, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['style', 'hidden'],
    });
    timer = setTimeout(stop, HEADING_WAIT_MS);
  });
  return () => {
    cancelAnimationFrame(frame);
    stop();
  };
}

/** Says a message in the live region. */
type Announce = (message: string) => void;

const AnnounceContext = createContext<Announce>(() => undefined);

/**
 * The console's one polite live region, in the layout (so it exists before anything is said
 * into it, which screen readers need to read a change). A message that arrives in router state
 * is said on arrival, and the arriving page's heading takes focus.
 */
export function LiveAnnouncer({ children }: { children: ReactNode }) {
  const location = useLocation();
  const [message, setMessage] = useState('');
  const arrived = outcomeOf(location.state);
  const headingWait = useRef<() => void>(undefined);
  // Another page: the last words go, and so does a wait for a heading that never came. A page
  // that only rewrites its own URL (the dashboard's filters) keeps both.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per page, not per render.
  useEffect(() => {
    setMessage('');
    return () => headingWait.current?.();
  }, [location.pathname]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per history entry, not per render of its state.
  useEffect(() => {
    if (arrived === undefined) return;
    setMessage(arrived);
    headingWait.current = focusPageHeading();
  }, [location.key]);
  const announce = useCallback<Announce>((next) => {
    // Emptied first, so the same words said twice (two scales to 3) are read twice.
    setMessage('');
    requestAnimationFrame(() => setMessage(next));
  }, []);
  return (
    <AnnounceContext value={announce}>
      <div id="console-announcer" role="status" aria-live="polite" className="visually-hidden">
        {message}
      </div>
      {children}
    </AnnounceContext>
  );
}

/**
 * What a create, apply, scale or delete calls once it has succeeded: with `to`, the console
 * goes there, says `message` and focuses that page's heading; without, it stays, says it and
 * focuses this page's heading.
 */
export function useMutationOutcome() {
  const navigate = useNavigate();
  const announce = useContext(AnnounceContext);
  return useMemo(
    () => ({
      completed(message: string, to?: string, state?: Record<string, unknown>) {
        if (to !== undefined) {
          navigate(to, { state: { ...state, outcome: message } satisfies OutcomeState });
          return;
        }
        announce(message);
        focusPageHeading();
      },
    }),
    [navigate, announce],
  );
}
