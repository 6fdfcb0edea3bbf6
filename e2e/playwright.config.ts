import { testTier } from '@mgpu/shared/test-tier';
import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './support/chromium.js';

/**
 * The console as an operator sees it: the built web app served by the built BFF on the embedded
 * cluster, in Debian's Chromium (never a downloaded browser). Build first: `pnpm build`.
 */
const port = Number(process.env.MGPU_E2E_PORT ?? 18_480);
const baseURL = `http://127.0.0.1:${port}`;
/**
 * The real control plane tier: under `tools/kube/with-real-cluster.sh` the BFF talks to upstream
 * kube-apiserver (MGPU_TEST_KUBECONFIG) instead of the embedded cluster; the tests are the same.
 */
const tier = testTier();
const cluster =
  tier.kind === 'real' ? `--kubeconfig ${JSON.stringify(tier.kubeconfig)}` : '--embedded';

export default defineConfig({
  testDir: 'tests',
  // One cluster for the whole run: tests create workloads under their own names.
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    baseURL,
    locale: 'zh-CN',
    // The console honours prefers-reduced-motion (antd's zoom-in of dialogs is off), so a click
    // never lands on a dialog's button while it is still moving into place.
    contextOptions: { reducedMotion: 'reduce' },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS],
    },
  },
  webServer: {
    command: `node ../apps/bff/dist/main.js ${cluster} --port ${port}`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
