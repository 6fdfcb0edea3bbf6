import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { testTier } from '@mgpu/shared/test-tier';
import { freePort, startConsoleOn, stopConsole } from './bff.js';

const simMain = fileURLToPath(new URL('../../packages/cluster-sim/dist/main.js', import.meta.url));

/** A cluster the test reaches directly through the Kubernetes API, and a console on it. */
export interface ReachableCluster {
  kubeconfig: string;
  /** The console's origin; undefined means the run's own console (Playwright's baseURL). */
  consoleURL: string | undefined;
  stop(): Promise<void>;
}

/**
 * The embedded cluster standalone (spec §7, `sim`), resolved once it says `ready`; `extraArgs`
 * such as `--state-file F`, which a console's own embedded cluster can then start from.
 */
export async function startSim(
  kubeconfig: string,
  extraArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [simMain, '--port', '0', '--kubeconfig', kubeconfig, ...extraArgs],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout ?? process.stdin });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sim exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      if (line.includes('ready')) resolve();
    });
  });
  return child;
}

/**
 * Under the real tier (`MGPU_TEST_KUBECONFIG`) the run's console already talks to that cluster;
 * otherwise the embedded cluster runs on its own with a kubeconfig, and a console of the test's
 * own talks to it (the run's console keeps its cluster inside its process).
 */
export async function startReachableCluster(): Promise<ReachableCluster> {
  const tier = testTier();
  if (tier.kind === 'real')
    return { kubeconfig: tier.kubeconfig, consoleURL: undefined, stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-cluster-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const sim = await startSim(kubeconfig);
  const port = await freePort();
  const bff = await startConsoleOn(port, kubeconfig).catch(async (error: unknown) => {
    sim.kill('SIGTERM');
    throw error;
  });
  return {
    kubeconfig,
    consoleURL: `http://127.0.0.1:${port}`,
    stop: async () => {
      await stopConsole(bff);
      if (sim.exitCode === null) {
        const exited = once(sim, 'exit');
        sim.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** kubectl (the machine's real one) as an outside client of the cluster; returns its stdout. */
export function kubectl(kubeconfig: string, args: readonly string[], input?: string): string {
  return execFileSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  });
}
