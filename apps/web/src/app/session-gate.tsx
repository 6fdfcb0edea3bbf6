import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, Fragment, type ReactNode, useEffect, useId, useState } from 'react';
import { TextInput } from '../components/text-input.js';
import { useI18n } from '../i18n/i18n.js';
import { useDocumentTitle } from './document-title.js';
import { OidcSignIn } from './oidc-sign-in.js';
import {
  ConsoleNotReady,
  notReadyWords,
  retryDelayWhileNotReady,
  retryWhileNotReady,
  type SessionState,
  sessionStateOf,
} from './session-answer.js';
import { SESSION_ENDED_EVENT } from './trpc.js';
import './session-gate.css';

/** Which sign-in the page asks for: the console's token, or the operator's own Kubernetes token. */
type SignInMode = 'token' | 'kubernetes';

const SESSION_QUERY = ['console-session'] as const;

const readSession = async (): Promise<SessionState> =>
  sessionStateOf(await fetch('/session', { headers: { accept: 'application/json' } }));

/**
 * When the console was started with `--token` (or `--auth kubernetes`: each operator's own
 * Kubernetes token, checked by the API server), the browser signs in once with it: the BFF
 * answers with an HttpOnly cookie, which — unlike an Authorization header — EventSource sends
 * too, so the live streams work. Pages render at once (a console without a token must not wait
 * for this); when a token turns out to be needed, the sign-in replaces them, and they mount
 * afresh after it so their queries and streams start over with the cookie.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [epoch, setEpoch] = useState(0);
  const {
    data: session,
    failureReason,
    refetch,
  } = useQuery({
    queryKey: SESSION_QUERY,
    queryFn: readSession,
    retry: retryWhileNotReady,
    retryDelay: retryDelayWhileNotReady,
    // Read on mount and when asked (a call found the session gone, a sign-in or sign-out).
    staleTime: Number.POSITIVE_INFINITY,
    // Kept while it is read again, so the page in front does not flicker away meanwhile.
    placeholderData: (previous) => previous,
  });
  useEffect(() => {
    const ended = () => void refetch();
    window.addEventListener(SESSION_ENDED_EVENT, ended);
    return () => window.removeEventListener(SESSION_ENDED_EVENT, ended);
  }, [refetch]);
  const restart = () => {
    // Pages mount afresh so their queries and streams start over with the new cookie (or none).
    queryClient.clear();
    setEpoch((value) => value + 1);
    void refetch();
  };
  // A console that cannot judge the cookie yet: a sign-in would get the same answer (a loop).
  if (failureReason instanceof ConsoleNotReady)
    return <WaitingForConsole notReady={failureReason} />;
  const mode: SignInMode = session?.mode === 'kubernetes' ? 'kubernetes' : 'token';
  if (session?.required && !session.signedIn)
    // With --auth oidc the issuer's page signs in; its callback comes back here with the cookie.
    return session.mode === 'oidc' ? <OidcSignIn /> : <SignIn mode={mode} onSignedIn={restart} />;
  return (
    <Fragment key={epoch}>
      {session?.mode && session.username && (
        <SignedInAs username={session.username} mode={session.mode} onSignedOut={restart} />
      )}
      {children}
    </Fragment>
  );
}

/** While the console cannot say whether this browser is signed in: it is asked again by itself. */
function WaitingForConsole({ notReady }: { notReady: ConsoleNotReady }) {
  const { t } = useI18n();
  const words = notReadyWords(notReady);
  const title = t(words.title);
  useDocumentTitle(title);
  const titleId = useId();
  return (
    <section className="session-gate" aria-labelledby={titleId} aria-busy="true">
      <h1 id={titleId} className="page-title">
        {title}
      </h1>
      <p>{t(words.text)}</p>
    </section>
  );
}

/**
 * With per-user sign-in: who the console acts as, and the way out. With `--auth oidc` the way
 * out is a full navigation to `/auth/logout`, which ends the issuer's session too and comes back
 * to the sign-in page.
 */
function SignedInAs({
  username,
  mode,
  onSignedOut,
}: {
  username: string;
  mode: NonNullable<SessionState['mode']>;
  onSignedOut(): void;
}) {
  const { t } = useI18n();
  const signOut = async () => {
    if (mode === 'oidc') return window.location.assign('/auth/logout');
    await fetch('/session', { method: 'DELETE' }).catch(() => undefined);
    onSignedOut();
  };
  return (
    <p className="session-identity">
      <span>{t('session.signedInAs', { user: username })}</span>
      <button type="button" className="session-sign-out" onClick={signOut}>
        {t('session.signOut')}
      </button>
    </p>
  );
}

function SignIn({ mode, onSignedIn }: { mode: SignInMode; onSignedIn(): void }) {
  const { t } = useI18n();
  const kubernetes = mode === 'kubernetes';
  useDocumentTitle(t('title.signIn'));
  const inputId = useId();
  const errorId = useId();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const response = await fetch('/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      if (response.ok) return onSignedIn();
      const refused = kubernetes ? 'session.refusedKubernetes' : 'session.wrongToken';
      setError(t(response.status === 401 ? refused : 'session.failed'));
    } catch {
      setError(t('session.failed'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="session-gate" aria-labelledby={`${inputId}-title`}>
      <h1 id={`${inputId}-title`} className="page-title">
        {t('session.title')}
      </h1>
      <p className="session-mode">
        {t(kubernetes ? 'session.modeKubernetes' : 'session.modeToken')}
      </p>
      <p>{t(kubernetes ? 'session.explainKubernetes' : 'session.explain')}</p>
      <form onSubmit={submit} className="session-form">
        <label htmlFor={inputId}>
          {t(kubernetes ? 'session.kubernetesToken' : 'session.token')}
        </label>
        <TextInput
          id={inputId}
          type="password"
          autoComplete="current-password"
          value={token}
          onValueChange={setToken}
          aria-invalid={error !== undefined}
          aria-describedby={error ? errorId : undefined}
        />
        {error && (
          <p id={errorId} role="alert" className="session-error">
            {error}
          </p>
        )}
        <button type="submit" className="session-submit" disabled={busy || token === ''}>
          {t('session.signIn')}
        </button>
      </form>
    </section>
  );
}
