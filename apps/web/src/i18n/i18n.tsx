import {
  type Lang,
  type Translate as TranslateOf,
  type Translation,
  translator,
} from '@mgpu/shared';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { en } from './en.js';
import { zhCN } from './zh-cn.js';

/** The console's strings as the zh-CN catalog (the source language) types them. */
export type UiCatalog = typeof zhCN;
export type MessageKey = keyof UiCatalog;

export const CATALOGS: Record<Lang, Translation<UiCatalog>> = { 'zh-CN': zhCN, en };

/** localStorage key that remembers the operator's language across visits. */
export const LANG_STORAGE_KEY = 'mgpu.lang';

/** `t(key, params)`: keys checked, each message's parameters typed from its zh-CN template. */
export type Translate = TranslateOf<UiCatalog>;

export const uiTranslator = (lang: Lang): Translate => translator<UiCatalog>(CATALOGS[lang]);

/** The remembered language, else zh-CN (also where there is no storage: the build's prerender). */
export function storedLang(): Lang {
  try {
    const stored = globalThis.localStorage?.getItem(LANG_STORAGE_KEY);
    return stored === 'en' || stored === 'zh-CN' ? stored : 'zh-CN';
  } catch {
    // Storage can be blocked (privacy modes): the default language still works.
    return 'zh-CN';
  }
}

interface I18nValue {
  lang: Lang;
  t: Translate;
  setLang(lang: Lang): void;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(storedLang);
  const setLang = useCallback((next: Lang) => {
    setLangState(next);
    try {
      localStorage.setItem(LANG_STORAGE_KEY, next);
    } catch {
      // Not remembered, but switched for this visit.
    }
  }, []);
  const value = useMemo(() => {
    // Absent when the build prerenders the form; index.html already says zh-CN there.
    if (typeof document !== 'undefined') document.documentElement.lang = lang;
    return { lang, setLang, t: uiTranslator(lang) };
  }, [lang, setLang]);
  return <I18nContext value={value}>{children}</I18nContext>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}
