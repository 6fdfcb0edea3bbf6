import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/app.js';
import { captureEarlyInput } from './features/create-workload/early-input.js';
import { storedLang } from './i18n/i18n.js';
import { PRERENDERED_PATH } from './prerendered.js';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html lost its #root element');
const app = (
  <StrictMode>
    <App />
  </StrictMode>
);
// The BFF sends /workloads/new with the form already rendered in zh-CN (the build's prerender),
// so it paints before this script runs. Hydrate it when this visit renders the same page in the
// same language; otherwise (a remembered English choice) render afresh, which replaces it.
const prerendered =
  root.firstElementChild !== null &&
  window.location.pathname === PRERENDERED_PATH &&
  storedLang() === 'zh-CN';
if (prerendered) {
  // Whatever the operator typed while this script loaded goes into the form once it is live.
  captureEarlyInput(root);
  hydrateRoot(root, app);
} else createRoot(root).render(app);
