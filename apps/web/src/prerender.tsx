/**
 * The form's markup for the build's prerender (vite.config.ts): /workloads/new in zh-CN, the
 * default language, as the browser's first render draws it, so `main.tsx` can hydrate it.
 * Runs in Node: nothing rendered on this path may read `window`, `document` or storage.
 */
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { AppWithRouter } from './app/app.js';
import { PRERENDERED_PATH } from './prerendered.js';

export function renderCreateWorkloadPage(): string {
  return renderToString(
    <StrictMode>
      <AppWithRouter
        router={(routes) => <StaticRouter location={PRERENDERED_PATH}>{routes}</StaticRouter>}
      />
    </StrictMode>,
  );
}
