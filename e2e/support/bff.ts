import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const bffMain = fileURLToPath(new URL('../../apps/bff/dist/main.js', import.meta.url));

/** A free loopback port for a BFF of a test's own. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A second console (built BFF on its own embedded cluster) for tests that stop and start it;
 * resolves once `/readyz` answers. The state file lets a restart keep what the test created.
 */
export function startConsole(
  port: number,
  stateFile: string,
  extraArgs: readonly string[] = [],
): Promise<ChildProcess> {
  return runConsole(port, ['--embedded', '--state-file', stateFile, ...extraArgs]);
}

/**
 * A console (built BFF) on a cluster of the test's own, through its kubeconfig. `listening`:
 * resolves once it answers at all, for a console that is never ready (what it says meanwhile).
 */
export function startConsoleOn(
  port: number,
  kubeconfig: string,
  extraArgs: readonly string[] = [],
  until: 'ready' | 'listening' = 'ready',
): Promise<ChildProcess> {
  return runConsole(port, ['--kubeconfig', kubeconfig, ...extraArgs], until);
}

async function runConsole(
  port: number,
  args: readonly string[],
  until: 'ready' | 'listening' = 'ready',
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [bffMain, '--port', String(port), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the console exited with ${child.exitCode}`);
    try {
      const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (readyz.ok || until === 'listening') return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Stops a console the way an operator's Ctrl-C or a rollout would, and waits until it is gone. */
export async function stopConsole(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
