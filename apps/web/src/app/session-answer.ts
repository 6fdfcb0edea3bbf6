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

/**
 * `GET /session` answered 503: the console cannot say yet whether this browser is signed in (it
 * has not read who signed out, or a proxy has no ready console behind it). Not "signed out": a
 * sign-in now would make a cookie answered the same way, so the page waits and asks again.
 */
export class ConsoleNotReady extends Error {}

/** The gate's reading of `GET /session`'s answer; throws `ConsoleNotReady` for a 503. */
export async function sessionStateOf(response: Response): Promise<SessionState> {
  if (response.status === 503) {
    const body = (await response.json().catch(() => undefined)) as
      | { error?: { message?: string } }
      | undefined;
    throw new ConsoleNotReady(body?.error?.message ?? response.statusText);
  }
  // An older console without /session (or a proxy in front) needs no sign-in from us.
  if (!response.ok) return { required: false, signedIn: true };
  return (await response.json()) as SessionState;
}

/**
 * TanStack Query's `retry` for the session: a console not ready is asked again for as long as it
 * takes (with the default backoff, 1 s doubling to 30 s); an unreachable one is not (the pages
 * show their own connection errors).
 */
export const retryWhileNotReady = (_failures: number, error: unknown) =>
  error instanceof ConsoleNotReady;
