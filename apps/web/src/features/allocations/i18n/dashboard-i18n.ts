import type { Lang } from '@mgpu/shared';
import { useMemo } from 'react';
import { type MessageKey, useI18n } from '../../../i18n/i18n.js';
import { allocationsEn } from './en.js';
import { type AllocationsKey, allocationsZhCN } from './zh-cn.js';

export type DashboardKey = MessageKey | AllocationsKey;

export const DASHBOARD_CATALOGS: Record<Lang, Record<AllocationsKey, string>> = {
  'zh-CN': allocationsZhCN,
  en: allocationsEn,
};

const isDashboardKey = (key: string): key is AllocationsKey => key in allocationsZhCN;

/** The console's translator, plus the dashboard's own strings (which load with its chunk). */
export function useDashboardI18n(): {
  lang: Lang;
  t(key: DashboardKey, params?: Record<string, string | number>): string;
} {
  const { lang, t } = useI18n();
  return useMemo(() => {
    const catalog = DASHBOARD_CATALOGS[lang];
    return {
      lang,
      t: (key, params) => {
        if (!isDashboardKey(key)) return t(key, params);
        const text = catalog[key];
        return params
          ? text.replace(/\{(\w+)\}/g, (whole, name: string) =>
              name in params ? String(params[name]) : whole,
            )
          : text;
      },
    };
  }, [lang, t]);
}
