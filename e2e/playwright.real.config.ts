import { TEST_KUBECONFIG_ENV, testTier } from '@mgpu/shared/test-tier';
import { defineConfig } from '@playwright/test';
import base from './playwright.config.js';

/**
 * The specs only the real tier can serve (`real/`): `--auth oidc` needs kube-apiserver trusting
 * the tier's OIDC issuer. tools/kube/run-real-suites.sh runs this config after the shared suite,
 * under with-real-cluster.sh (MGPU_TEST_KUBECONFIG, MGPU_TEST_OIDC_*); the embedded run never
 * lists these specs, so nothing there is skipped.
 */
const env = process.env;
const port = Number(env.MGPU_E2E_REAL_PORT ?? 18_481);
const baseURL = `http://127.0.0.1:${port}`;
const tier = testTier();
const missing = [
  ...(tier.kind === 'real' ? [] : [TEST_KUBECONFIG_ENV]),
  ...(env.MGPU_TEST_OIDC_ISSUER ? [] : ['MGPU_TEST_OIDC_ISSUER']),
];
if (tier.kind !== 'real' || missing.length > 0)
  throw new Error(
    `playwright.real.config.ts runs under tools/kube/with-real-cluster.sh (${missing.join(', ')} unset)`,
  );
const flags = [
  `--kubeconfig ${JSON.stringify(tier.kubeconfig)}`,
  '--auth oidc',
  `--oidc-issuer ${JSON.stringify(env.MGPU_TEST_OIDC_ISSUER)}`,
  `--oidc-client-id ${JSON.stringify(env.MGPU_TEST_OIDC_CLIENT_ID)}`,
  `--oidc-client-secret ${JSON.stringify(env.MGPU_TEST_OIDC_CLIENT_SECRET)}`,
  `--oidc-ca-file ${JSON.stringify(env.MGPU_TEST_OIDC_CA_FILE)}`,
];

export default defineConfig({
  ...base,
  testDir: 'real',
  use: {
    ...base.use,
    baseURL,
    // The issuer's certificate is signed by the tier's throwaway CA, which Chromium's own store
    // does not hold; the console itself checks the issuer against that CA (--oidc-ca-file).
    ignoreHTTPSErrors: true,
  },
  webServer: {
    command: `node ../apps/bff/dist/main.js ${flags.join(' ')} --port ${port}`,
    url: `${baseURL}/readyz`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
