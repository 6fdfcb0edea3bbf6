/**
 * The process entry (`main.ts`, what `npm start` runs): on a configured cluster it never loads
 * the simulator, which only the embedded cluster needs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeConfigForServer } from '@mgpu/kube-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer } from './test-support/embedded-cluster.js';

const bffRoot = fileURLToPath(new URL('..', import.meta.url));
const moduleTrace = fileURLToPath(new URL('./test-support/module-trace.mjs', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Runs the console from its sources until it logs that it is ready; the modules it loaded. */
async function modulesLoadedBy(args: readonly string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'mgpu-bff-main-'));
  const trace = join(dir, 'modules.txt');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--import', moduleTrace, 'src/main.ts'].concat(
      '--port',
      '0',
      ...args,
    ),
    {
      cwd: bffRoot,
      env: { ...process.env, MGPU_TEST_MODULE_TRACE: trace },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('console ready at')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the console exited with ${code}: ${output}`)));
  });
  return (await readFile(trace, 'utf8')).split('\n').filter(Boolean);
}

/** A loopback port nobody listens on now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const simulatorModules = (urls: readonly string[]) =>
  urls.filter((url) => url.includes('/packages/cluster-sim/'));

describe('the console process', () => {
  it('on a cluster from --kubeconfig, loads none of the simulator', {
    timeout: 120_000,
  }, async () => {
    const api = await startApiServer();
    cleanups.push(() => api.close());
    const kubeconfig = join(await mkdtemp(join(tmpdir(), 'mgpu-bff-kubeconfig-')), 'config');
    await writeFile(kubeconfig, kubeConfigForServer(api).exportConfig(), { mode: 0o600 });

    const loaded = await modulesLoadedBy(['--kubeconfig', kubeconfig]);
    expect(loaded.some((url) => url.includes('/apps/bff/src/server.ts'))).toBe(true);
    expect(simulatorModules(loaded)).toEqual([]);
  });

  it('with --embedded, loads the simulator to start it, and --gpu-metrics-port serves its GPU exporter', {
    timeout: 120_000,
  }, async () => {
    const gpuMetricsPort = await freePort();
    const loaded = await modulesLoadedBy([
      '--embedded',
      '--gpu-metrics-port',
      String(gpuMetricsPort),
    ]);
    expect(simulatorModules(loaded)).not.toEqual([]);
    const response = await fetch(`http://127.0.0.1:${gpuMetricsPort}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^# HELP DCGM_FI_DEV_GPU_UTIL .*simulated/m);
    // The default topology's pods already hold cards: their instances are in it.
    expect(text).toMatch(/^mgpu_instance_utilization_percent\{.*pod="train-ddp-0".*\} \d/m);
  });
});
