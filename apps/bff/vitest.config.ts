import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages from their TypeScript sources, never a stale dist.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  // A hang guard, not a speed check: each file starts a cluster and a server on a busy machine.
  test: {
    include: ['src/**/*.test.ts'],
    // Tests only upstream kube-apiserver can serve (RBAC, token reviews): vitest.real.config.ts.
    exclude: [...configDefaults.exclude, 'src/**/*.real.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
