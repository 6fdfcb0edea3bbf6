import type { MessageKey } from '../i18n/i18n.js';

/** What `GET /session` says of this browser. */
export interface SessionState {
  required: boolean;
  signedIn: boolean;
  /**
   * Per-user sign-in: `kubernetes` takes the operator's own token, `oidc` goes through the
   * issuer's page; absent: the console's one `--token`, if required.
   */
  mode?: 'kubernetes' | 'oidc';
  /** Who signed in, with per-user sign-in. */
  username?: string;
}

/** The BFF's `reason` for a cookie it cannot judge before it has read who signed out. */
export const SIGN_OUTS_NOT_READ = 'SIGN_OUTS_NOT_READ';

/**
 * `GET /session` answered 503: the console cannot say yet whether this browser is signed in (it
 * has not read who signed out, or a proxy has no ready console behind it). Not "signed out": a
 * sign-in now would make a cookie answered the same way, so the page waits and asks again.
 */
export class ConsoleNotReady extends Error {
  constructor(
    message: string,
    /** The body's `reason` when the console itself answered; absent from a proxy's 503. */
    readonly reason: string | undefined,
    /** `Retry-After` in seconds, when given: when the console expects to answer. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

/**
 * What the gate says while it waits: the Secret of sign-outs only when the console itself gave
 * that reason; any other 503 (a proxy with no ready console behind it, even in front of a console
 * without sign-in) only that the console is not available yet.
 */
export const notReadyWords = (
  notReady: ConsoleNotReady,
): { readonly title: MessageKey; readonly text: MessageKey } =>
  notReady.reason === SIGN_OUTS_NOT_READ
    ? { title: 'session.startingTitle', text: 'session.starting' }
    : { title: 'session.unavailableTitle', text: 'session.unavailable' };

/** The gate's reading of `GET /session`'s answer; throws `ConsoleNotReady` for a 503. */
export async function sessionStateOf(response: Response): Promise<SessionState> {
  if (response.status === 503) {
    const body = (await response.json().catch(() => undefined)) as
      | { error?: { message?: string; reason?: string } }
      | undefined;
    throw new ConsoleNotReady(
      body?.error?.message ?? response.statusText,
      body?.error?.reason,
      retryAfterSecondsOf(response.headers.get('retry-after')),
    );
  }
  // An older console without /session (or a proxy in front) needs no sign-in from us.
  if (!response.ok) return { required: false, signedIn: true };
  return (await response.json()) as SessionState;
}

/** Only the delay-seconds form: an HTTP-date would need the two clocks to agree. */
function retryAfterSecondsOf(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/**
 * TanStack Query's `retry` for the session: a console not ready is asked again for as long as it
 * takes; an unreachable one is not (the pages show their own connection errors).
 */
export const retryWhileNotReady = (_failures: number, error: unknown) =>
  error instanceof ConsoleNotReady;

/** TanStack Query's own default backoff (1 s doubling to 30 s), which it does not export. */
const backoffMs = (failures: number) => Math.min(1000 * 2 ** failures, 30_000);

/**
 * TanStack Query's `retryDelay` for the session: its backoff, but never later than the console's
 * `Retry-After`, so the page follows a console that became ready within those seconds instead of
 * waiting out a doubled delay.
 */
export const retryDelayWhileNotReady = (failures: number, error: unknown) => {
  const backoff = backoffMs(failures);
  if (!(error instanceof ConsoleNotReady) || error.retryAfterSeconds === undefined) return backoff;
  return Math.min(error.retryAfterSeconds * 1000, backoff);
};
