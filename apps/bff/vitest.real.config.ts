import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The BFF's tests that need upstream kube-apiserver's RBAC and token reviews (`*.real.test.ts`),
 * run by tools/kube/run-real-suites.sh only: the embedded cluster has neither, so they are not
 * in the default run at all rather than skipped there.
 */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['src/**/*.real.test.ts'], exclude: configDefaults.exclude },
});
