/**
 * The one test-cluster switch (issue 26): which tier this test run is on and how to reach its
 * cluster. The embedded tier (the default) starts the embedded cluster per test file; the real
 * tier is a kube-apiserver that tools/kube/with-real-cluster.sh started, named by
 * MGPU_TEST_KUBECONFIG. Every package's tests, helpers and Playwright configs ask this module,
 * never the variable. It lives in shared's test-only entry (`@mgpu/shared/test-tier`, not in the
 * package's index or build) because every test package already depends on shared.
 */

/** What with-real-cluster.sh exports; tools/kube/run-real-suites.sh looks for this module's users. */
export const TEST_KUBECONFIG_ENV = 'MGPU_TEST_KUBECONFIG';
/** The kubeconfig context of the cluster's administrator, where the suite runs as another user. */
export const TEST_ADMIN_CONTEXT_ENV = 'MGPU_TEST_ADMIN_CONTEXT';

export type TestTier =
  | { kind: 'embedded' }
  | {
      kind: 'real';
      /** The kubeconfig file of the real cluster; its current context is the user tests run as. */
      kubeconfig: string;
      /**
       * The administrator's context in that file, when the suite runs as a lesser user
       * (run-real-suites.sh runs the BFF's as the console user); undefined otherwise.
       */
      adminContext: string | undefined;
    };

/** The tier of this run, read from the environment each call (as set when the run started). */
export function testTier(env: NodeJS.ProcessEnv = process.env): TestTier {
  const kubeconfig = env[TEST_KUBECONFIG_ENV];
  if (!kubeconfig) return { kind: 'embedded' };
  return { kind: 'real', kubeconfig, adminContext: env[TEST_ADMIN_CONTEXT_ENV] || undefined };
}

/** True on the real tier: for tests that run, or skip, on one tier only. */
export function onRealTier(env: NodeJS.ProcessEnv = process.env): boolean {
  return testTier(env).kind === 'real';
}
