import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, Fragment, type ReactNode, useEffect, useId, useState } from 'react';
import { TextInput } from '../components/text-input.js';
import { useI18n } from '../i18n/i18n.js';
import { OidcSignIn } from './oidc-sign-in.js';
import './session-gate.css';

interface SessionState {
  required: boolean;
  signedIn: boolean;
  /** Per-user sign-in (spec §8): `oidc` signs in through the issuer, not with a typed token. */
  mode?: string;
}

async function readSession(): Promise<SessionState> {
  const response = await fetch('/session', { headers: { accept: 'application/json' } });
  // An older console without /session (or a proxy in front) needs no sign-in from us.
  if (!response.ok) return { required: false, signedIn: true };
  return (await response.json()) as SessionState;
}

/**
 * When the console was started with `--token`, the browser signs in once with it: the BFF
 * answers with an HttpOnly cookie, which — unlike an Authorization header — EventSource sends
 * too, so the live streams work. Pages render at once (a console without a token must not wait
 * for this); when a token turns out to be needed, the sign-in replaces them, and they mount
 * afresh after it so their queries and streams start over with the cookie.
 */
export function SessionGate({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [needed, setNeeded] = useState(false);
  const [throughIssuer, setThroughIssuer] = useState(false);
  const [epoch, setEpoch] = useState(0);
  useEffect(() => {
    readSession().then(
      (session) => {
        setThroughIssuer(session.mode === 'oidc');
        setNeeded(session.required && !session.signedIn);
      },
      // Unreachable BFF: the pages show their own connection errors.
      () => undefined,
    );
  }, []);
  // The issuer's page signs in and the console's callback comes back here with the cookie.
  if (needed && throughIssuer) return <OidcSignIn />;
  if (needed) {
    return (
      <SignIn
        onSignedIn={() => {
          queryClient.clear();
          setNeeded(false);
          setEpoch((value) => value + 1);
        }}
      />
    );
  }
  return <Fragment key={epoch}>{children}</Fragment>;
}

function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const { t } = useI18n();
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
      setError(t(response.status === 401 ? 'session.wrongToken' : 'session.failed'));
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
      <p>{t('session.explain')}</p>
      <form onSubmit={submit} className="session-form">
        <label htmlFor={inputId}>{t('session.token')}</label>
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
