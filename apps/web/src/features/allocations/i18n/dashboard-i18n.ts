import { type Lang, type Translate, type Translation, translator } from '@mgpu/shared';
import { useMemo } from 'react';
import { CATALOGS, type UiCatalog, useI18n } from '../../../i18n/i18n.js';
import { allocationsEn } from './en.js';
import { allocationsZhCN } from './zh-cn.js';

/** The console's strings and the dashboard's own, typed by their zh-CN catalogs. */
export type DashboardCatalog = UiCatalog & typeof allocationsZhCN;
export type DashboardKey = keyof DashboardCatalog;

export const DASHBOARD_CATALOGS: Record<Lang, Translation<typeof allocationsZhCN>> = {
  'zh-CN': allocationsZhCN,
  en: allocationsEn,
};

/** The console's translator over both catalogs: the dashboard's strings load with its chunk. */
export function useDashboardI18n(): { lang: Lang; t: Translate<DashboardCatalog> } {
  const { lang } = useI18n();
  return useMemo(
    () => ({
      lang,
      t: translator<DashboardCatalog>({ ...CATALOGS[lang], ...DASHBOARD_CATALOGS[lang] }),
    }),
    [lang],
  );
}
