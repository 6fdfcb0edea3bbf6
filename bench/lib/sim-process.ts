import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';

export interface SimProcess {
  /** The embedded cluster's API server, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Its bearer token, read from the kubeconfig the sim wrote. */
  token: string;
  stop(): Promise<void>;
}

const SIM_MAIN = fileURLToPath(new URL('../../packages/cluster-sim/src/main.ts', import.meta.url));

/**
 * The embedded cluster in its own process, as a BFF meets a cluster in production: its API
 * server, controllers and node agents do not share the BFF's event loop, so a benchmark of the
 * BFF measures the BFF rather than the simulator's reactions to the load it makes.
 */
export async function startSimProcess(options: { topology?: string } = {}): Promise<SimProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'mgpu-bench-sim-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=source',
      SIM_MAIN,
      '--port',
      '0',
      '--kubeconfig',
      kubeconfig,
      ...(options.topology ? ['--topology', options.topology] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sim exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const match = /ready at (http:\/\/\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  // The sim writes the kubeconfig before it says ready.
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const token = config.getCurrentUser()?.token;
  await rm(dir, { recursive: true, force: true });
  if (!token) throw new Error('the sim wrote no token into its kubeconfig');
  return {
    url,
    token,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
