/**
 * The held-out check in small: the embedded cluster with its GPU exporter on a port, a
 * real Prometheus scraping it, and a console reading usage through that Prometheus with a short
 * idle-after. A workload whose pod template says 0 % is idle and one at 80 % is not, with
 * efficiency near 0 and 0.8 — the same verdicts as a console reading the exporter directly, and
 * the namespace table agrees. The cluster is the test's own (the simulator's model is what it
 * reads), so it runs alike on either tier.
 */
import {
  type AppCaller,
  createCaller,
  embeddedConnection,
  PrometheusSource,
  type UsageOptions,
} from '@mgpu/api';
import { kubeConfigForServer } from '@mgpu/kube-client';
import { seedRequest } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../test-support/embedded-cluster.js';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';
import { createSimulatedDeployment, settledVerdicts } from './usage-verdicts-support.js';

const IDLE_AFTER_SECONDS = 10;
const suffix = Date.now().toString(36);
const idleName = `usage-idle-${suffix}`;
const busyName = `usage-busy-${suffix}`;

let cluster: EmbeddedCluster;
let prometheus: PrometheusServer;
const consoles: RunningBff[] = [];
let throughPrometheus: AppCaller;
let throughExporter: AppCaller;
let throughDeadPrometheus: AppCaller;

async function consoleWith(usage: UsageOptions): Promise<AppCaller> {
  const connection = embeddedConnection(
    cluster,
    async () => {},
    () => cluster.gpuMetrics.samples(),
  );
  const bff = await startBff({ connection, port: 0, logger: false, usage });
  consoles.push(bff);
  return createCaller(bff.context);
}

/** The seed request at `percent` of its own allocation, created as an administrator would. */
async function createAt(name: string, percent: string): Promise<void> {
  const preview = await throughExporter.workload.preview({
    request: seedRequest(name),
    lang: 'en',
  });
  await createSimulatedDeployment(kubeConfigForServer(cluster), preview.manifest, percent);
}

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => {}, gpuMetricsPort: 0 });
  const exporter = new URL(cluster.gpuMetrics.url ?? '');
  prometheus = await startPrometheus({ targets: [exporter.host] });
  // The defaults an operator gets: dcgm names, a 15 s subquery step; only idle-after is short.
  throughPrometheus = await consoleWith({
    source: new PrometheusSource({ url: prometheus.url }),
    idleAfterSeconds: IDLE_AFTER_SECONDS,
  });
  throughExporter = await consoleWith({
    idleAfterSeconds: IDLE_AFTER_SECONDS,
    exporterSampleIntervalMs: 1000,
  });
  // Port 9 (discard) on loopback: nothing answers there.
  throughDeadPrometheus = await consoleWith({
    source: new PrometheusSource({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }),
    idleAfterSeconds: IDLE_AFTER_SECONDS,
  });
  await createAt(idleName, '0');
  await createAt(busyName, '80');
}, 120_000);

afterAll(async () => {
  for (const bff of consoles) await bff.close();
  await prometheus?.close();
  await cluster?.stop();
});

const names = { idle: idleName, busy: busyName };
const ours = <Row extends { workload: string }>(rows: readonly Row[]) =>
  rows.filter((row) => row.workload === idleName || row.workload === busyName);
const verdictsOf = (caller: AppCaller) =>
  settledVerdicts(() => caller.usage.workloads({ namespace: 'default' }), names);

describe('usage through a real Prometheus scraping the embedded exporter', () => {
  it('flags the 0 % workload idle and not the 80 % one, as the exporter read directly does', {
    timeout: 200_000,
  }, async () => {
    const viaPrometheus = await verdictsOf(throughPrometheus);
    const viaExporter = await verdictsOf(throughExporter);
    for (const [verdicts, source] of [
      [viaPrometheus, 'prometheus'],
      [viaExporter, 'embedded'],
    ] as const) {
      const idle = verdicts.get(idleName);
      const busy = verdicts.get(busyName);
      expect(idle).toMatchObject({ source, idle: true, kind: 'Deployment' });
      expect(busy).toMatchObject({ source, idle: false, kind: 'Deployment' });
      expect(idle?.efficiency).not.toBeNull();
      expect(Math.abs((idle?.efficiency ?? 1) - 0)).toBeLessThanOrEqual(0.1);
      expect(Math.abs((busy?.efficiency ?? 0) - 0.8)).toBeLessThanOrEqual(0.1);
      expect(idle?.idleGpuHours).toBeGreaterThan(0);
      expect(busy?.idleGpuHours).toBe(0);
    }
    // Through Prometheus too, the figures are labelled the simulator's (its series' # HELP says so).
    const again = ours(await throughPrometheus.usage.workloads({ namespace: 'default' }));
    expect(again.map((row) => row.simulated)).toEqual([true, true]);
  });

  it('the namespace table agrees: the idle workload and its GPU-hours counted, an efficiency known', {
    timeout: 60_000,
  }, async () => {
    for (const caller of [throughPrometheus, throughExporter]) {
      const rows = ours(await caller.usage.workloads({ namespace: 'default' }));
      const [team] = (await caller.usage.namespaces({})).filter(
        (row) => row.namespace === 'default',
      );
      expect(team).toBeDefined();
      const idleInTable = rows.filter((row) => row.idle === true).length;
      expect(team?.idleWorkloads).toBeGreaterThanOrEqual(idleInTable);
      expect(team?.idleGpuHours).toBeGreaterThan(0);
      expect(team?.efficiency).not.toBeNull();
    }
  });

  it('a Prometheus that does not answer leaves every figure unknown with why, never 0', {
    timeout: 60_000,
  }, async () => {
    // The same workloads, settled above: only the source differs.
    const rows = ours(await throughDeadPrometheus.usage.workloads({ namespace: 'default' }));
    expect(rows.map((row) => row.workload).sort()).toEqual([busyName, idleName].sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        source: 'prometheus',
        efficiency: null,
        efficiencyUnknownReason: 'source-failed',
        idle: null,
        // Memory used may still come from the node's own report (vmem_info), not from Prometheus.
        used: { computePercent: null },
      });
      expect(row.allocated.computePercent).toBeGreaterThan(0);
    }
  });
});
