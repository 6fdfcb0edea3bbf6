import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/support/chromium.js';

// The e2e tests' own: one way to pick a port and launch Chromium for every browser-driving tool.
export { freePort } from '../../e2e/support/bff.js';

/** The built console and Debian's Chromium, as the web benchmarks drive them. */
const root = fileURLToPath(new URL('../..', import.meta.url));
export const BFF_MAIN = `${root}apps/bff/dist/main.js`;
export const WEB_INDEX = `${root}apps/web/dist/index.html`;
export const CHROMIUM = CHROMIUM_PATH;

/** Says what is missing (build first, Chromium from apt) and returns false when something is. */
export function haveBuiltConsole(): boolean {
  if (existsSync(BFF_MAIN) && existsSync(WEB_INDEX) && existsSync(CHROMIUM)) return true;
  console.error(
    `needs the built apps (pnpm build: ${BFF_MAIN}, ${WEB_INDEX}) and Debian's Chromium at ${CHROMIUM}`,
  );
  return false;
}

/** The built BFF on `port` (cluster arguments as `npm start` takes them), once `/readyz` answers. */
export async function startBuiltBff(port: number, clusterArgs: string[]): Promise<ChildProcess> {
  // BENCH_BFF_NODE_ARGS: extra Node flags for the BFF, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`.
  const nodeArgs = process.env.BENCH_BFF_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...nodeArgs, BFF_MAIN, ...clusterArgs, '--port', String(port)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    },
  );
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGTERM');
  throw new Error('the BFF did not become ready within 120 s');
}

/** Debian's Chromium with the flags that keep it off the (closed) network, and any others. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}
