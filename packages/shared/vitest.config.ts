import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  // A hang guard, not a speed check: CLI tests start real processes on a busy 2-core machine.
  test: { include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
