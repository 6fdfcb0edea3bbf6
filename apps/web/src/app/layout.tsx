import { Suspense, useEffect, useId, useRef, useState } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { useI18n } from '../i18n/i18n.js';
import { DeletedNoticeBanner } from './deleted-notice.js';
import { LiveAnnouncer } from './mutation-outcome.js';
import { SessionGate } from './session-gate.js';

const LANG_OPTIONS = [
  { lang: 'zh-CN', name: '中文' },
  { lang: 'en', name: 'English' },
] as const;

/**
 * On a narrow screen the links and the language switch fold behind a menu button (CSS shows the
 * bar as it is from 768 px up, where the button is hidden). Escape closes it and gives focus
 * back to the button; following a link closes it.
 */
function useShellMenu() {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes the menu.
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [open]);
  return { open, button, toggle: () => setOpen((value) => !value) };
}

export function Layout() {
  const { t, lang, setLang } = useI18n();
  const menu = useShellMenu();
  const menuId = useId();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="shell-header">
        <span className="shell-brand">{t('app.title')}</span>
        <button
          ref={menu.button}
          type="button"
          className="shell-menu-button"
          aria-expanded={menu.open}
          aria-controls={menuId}
          onClick={menu.toggle}
        >
          <span className="shell-menu-icon" aria-hidden="true" />
          {t('nav.menu')}
        </button>
        <div id={menuId} className={menu.open ? 'shell-menu shell-menu-open' : 'shell-menu'}>
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
        </div>
      </header>
      <main id="main" className="shell-main">
        <LiveAnnouncer>
          <DeletedNoticeBanner />
          <SessionGate>
            <Suspense fallback={<p className="loading">…</p>}>
              <Outlet />
            </Suspense>
          </SessionGate>
        </LiveAnnouncer>
      </main>
    </div>
  );
}
