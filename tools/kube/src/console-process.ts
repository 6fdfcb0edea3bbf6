// The console as an operator starts it: a process of its own running apps/bff/src/main.ts from
// source (no build needed), its output kept for the error that says why it did not come up.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './test-support.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface ConsoleProcess {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string;
  /** `/readyz`'s answer once it is ready. */
  ready: Record<string, unknown>;
  /** SIGTERM, and the wait for its exit. */
  stop: () => Promise<void>;
}

/**
 * Starts the console with `args` and exactly `env` (plus PATH), listening on `port` of
 * loopback, and waits for its `/readyz` to answer 200.
 */
export async function startConsoleProcess(options: {
  args: string[];
  env: Record<string, string | undefined>;
  port: number;
}): Promise<ConsoleProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'apps/bff/src/main.ts', ...options.args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, ...options.env },
    },
  );
  let output = '';
  const collect = (chunk: string) => {
    output += chunk;
  };
  child.stdout?.setEncoding('utf8').on('data', collect);
  child.stderr?.setEncoding('utf8').on('data', collect);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  const base = `http://127.0.0.1:${options.port}`;
  try {
    const ready = await eventually("the console's /readyz", async () => {
      if (child.exitCode !== null) throw new Error('the console exited');
      const response = await fetch(`${base}/readyz`).catch(() => undefined);
      return response?.status === 200
        ? ((await response.json()) as Record<string, unknown>)
        : undefined;
    });
    return { base, output: () => output, ready, stop };
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}; the console said:\n${output}`);
  }
}
