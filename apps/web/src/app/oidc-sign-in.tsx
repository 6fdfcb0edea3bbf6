import { useId } from 'react';
import { useI18n } from '../i18n/i18n.js';
import { useDocumentTitle } from './document-title.js';

/**
 * `--auth oidc`: the sign-in is the issuer's own page. A plain link to the console's
 * `/auth/login` (a full navigation, not a fetch: the issuer's page must load), which comes back
 * to the page the operator is on.
 */
export function OidcSignIn() {
  const { t } = useI18n();
  useDocumentTitle(t('title.signIn'));
  const titleId = useId();
  const here = `${window.location.pathname}${window.location.search}${window.location.hash}`;
  return (
    <section className="session-gate" aria-labelledby={titleId}>
      <h1 id={titleId} className="page-title">
        {t('session.title')}
      </h1>
      <p className="session-mode">{t('session.modeOidc')}</p>
      <p>{t('session.oidcExplain')}</p>
      <a className="session-submit" href={`/auth/login?returnTo=${encodeURIComponent(here)}`}>
        {t('session.oidcSignIn')}
      </a>
    </section>
  );
}
