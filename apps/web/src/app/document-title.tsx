import { useEffect } from 'react';
import { useParams } from 'react-router';
import { type Translate, useI18n } from '../i18n/i18n.js';

/**
 * The tab's title: the page's own name, then the console's ("创建负载 · mGPU 控制台"), in the UI
 * language, so an operator with several tabs open (or a screen reader arriving on one) knows
 * which page it is.
 */
export function useDocumentTitle(page: string): void {
  const { t } = useI18n();
  const title = t('title.page', { page });
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** The routes with a title of their own; a workload's pages name the workload. */
export type TitledRoute = 'create' | 'workloads' | 'result' | 'edit' | 'allocations' | 'notFound';

function routeTitle(t: Translate, route: TitledRoute, namespace: string, name: string): string {
  switch (route) {
    case 'result':
      return t('title.result', { namespace, name });
    case 'edit':
      return t('title.edit', { namespace, name });
    default:
      return t(`title.${route}`);
  }
}

/**
 * Sets the title of the route it sits in (app.tsx places one beside each page), so every page,
 * its loading and error states included, has its title without each page setting it. The
 * sign-in page, which replaces any route, sets its own.
 */
export function RouteTitle({ route }: { route: TitledRoute }) {
  const { t } = useI18n();
  const { namespace = '', name = '' } = useParams();
  useDocumentTitle(routeTitle(t, route, namespace, name));
  return null;
}
