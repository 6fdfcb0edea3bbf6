/**
 * The held-out check's shape, as an operator runs it: the embedded cluster standalone with its
 * GPU exporter (`sim --gpu-metrics-port`), Debian's Prometheus scraping it, and the built
 * console with `--prometheus-url` and a short `--idle-after`, asked over HTTP. The 0 % workload
 * is idle and the 80 % one is not, with efficiency within 0.1 of 0 and 0.8.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { seedRequest, type WorkloadUsage } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleProcess, startConsoleProcess } from '../test-support/console-process.js';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';
import { createSimulatedDeployment, settledVerdicts } from './usage-verdicts-support.js';

const SIM_MAIN = fileURLToPath(
  new URL('../../../../packages/cluster-sim/dist/main.js', import.meta.url),
);
const suffix = Date.now().toString(36);
const names = { idle: `held-idle-${suffix}`, busy: `held-busy-${suffix}` };

let dir = '';
let sim: ChildProcess | undefined;
let prometheus: PrometheusServer | undefined;
let consoleProcess: ConsoleProcess | undefined;
let consoleUrl = '';

/** `pnpm sim` with its GPU exporter on a free port; the exporter's URL from its ready line. */
async function startSim(kubeconfig: string): Promise<{ child: ChildProcess; exporter: URL }> {
  if (!existsSync(SIM_MAIN)) throw new Error(`${SIM_MAIN} is missing: build cluster-sim first`);
  const child = spawn(
    process.execPath,
    [SIM_MAIN, '--port', '0', '--kubeconfig', kubeconfig, '--gpu-metrics-port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout ?? process.stdin });
  const exporter = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sim exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      const ready = /ready.*GPU exporter at (http:\/\/\S+?)[,)]/.exec(line);
      if (ready?.[1]) resolve(new URL(ready[1]));
      else if (line.includes('ready')) reject(new Error(`sim named no GPU exporter: ${line}`));
    });
  });
  return { child, exporter };
}

async function trpcQuery<T>(procedure: string, input: unknown): Promise<T> {
  const response = await fetch(
    `${consoleUrl}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
  );
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || !body.result) throw new Error(`${procedure}: ${JSON.stringify(body)}`);
  return body.result.data;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-held-out-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const started = await startSim(kubeconfig);
  sim = started.child;
  prometheus = await startPrometheus({ targets: [started.exporter.host] });
  consoleProcess = startConsoleProcess([
    '--kubeconfig',
    kubeconfig,
    '--prometheus-url',
    prometheus.url,
    '--idle-after',
    '10s',
  ]);
  consoleUrl = await consoleProcess.url;
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  for (const [name, percent] of [
    [names.idle, '0'],
    [names.busy, '80'],
  ] as const) {
    const preview = await trpcQuery<{ manifest: unknown }>('workload.preview', {
      request: seedRequest(name),
      lang: 'en',
    });
    await createSimulatedDeployment(admin, preview.manifest, percent);
  }
}, 180_000);

afterAll(async () => {
  consoleProcess?.signal('SIGTERM');
  await consoleProcess?.exit;
  await prometheus?.close();
  if (sim && sim.exitCode === null) {
    const exited = new Promise((resolve) => sim?.once('exit', resolve));
    sim.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('a console with --prometheus-url on the standalone embedded cluster', () => {
  it('flags the 0 % workload idle and not the 80 % one, efficiency near 0 and 0.8', {
    timeout: 150_000,
  }, async () => {
    const read = () => trpcQuery<WorkloadUsage[]>('usage.workloads', { namespace: 'default' });
    const verdicts = await settledVerdicts(read, names);
    const idle = verdicts.get(names.idle);
    const busy = verdicts.get(names.busy);
    expect(idle).toMatchObject({ source: 'prometheus', idle: true });
    expect(busy).toMatchObject({ source: 'prometheus', idle: false });
    expect(Math.abs((idle?.efficiency ?? 1) - 0)).toBeLessThanOrEqual(0.1);
    expect(Math.abs((busy?.efficiency ?? 0) - 0.8)).toBeLessThanOrEqual(0.1);
    expect(consoleProcess?.output()).toContain(`usage from Prometheus at ${prometheus?.url}`);
  });
});
