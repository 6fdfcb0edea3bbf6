import { Suspense } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useI18n } from '../i18n/i18n.js';
import { DeletedNoticeBanner } from './deleted-notice.js';
import { SessionGate } from './session-gate.js';

const LANG_OPTIONS = [
  { lang: 'zh-CN', name: '中文' },
  { lang: 'en', name: 'English' },
] as const;

export function Layout() {
  const { t, lang, setLang } = useI18n();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="shell-header">
        <span className="shell-brand">{t('app.title')}</span>
        <nav aria-label={t('nav.mainNavigation')} className="shell-nav">
          <NavLink to="/workloads/new">{t('nav.create')}</NavLink>
          <NavLink to="/workloads" end>
            {t('nav.workloads')}
          </NavLink>
          <NavLink to="/allocations">{t('nav.allocations')}</NavLink>
        </nav>
        {/* Each language is named in itself, so anyone can find theirs. */}
        <fieldset className="lang-switch">
          <legend className="visually-hidden">{t('nav.language')}</legend>
          {LANG_OPTIONS.map((option) => (
            <button
              key={option.lang}
              type="button"
              lang={option.lang}
              aria-pressed={lang === option.lang}
              className={lang === option.lang ? 'lang-option lang-active' : 'lang-option'}
              onClick={() => setLang(option.lang)}
            >
              {option.name}
            </button>
          ))}
        </fieldset>
      </header>
      <main id="main" className="shell-main">
        <DeletedNoticeBanner />
        <SessionGate>
          <Suspense fallback={<p className="loading">…</p>}>
            <Outlet />
          </Suspense>
        </SessionGate>
      </main>
    </div>
  );
}
