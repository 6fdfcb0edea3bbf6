/**
 * A Prometheus that scrapes less often than `--idle-after` (its default is every minute, a usual
 * one every 15 s; `--idle-after 10s` is the short check): most `idle-after` ranges then
 * hold no sample. The embedded cluster's exporter scraped every 10 s by Debian's real
 * Prometheus, a console with `--idle-after 3s` and no shared read (each call asks Prometheus):
 * the 0 % workload is idle and the 80 % one is not at EVERY read across more than one scrape
 * interval — never unknown in between — and the pool history's card read knows every card at
 * every read of a window shorter than the interval.
 */
import { type AppCaller, createCaller, embeddedConnection, PrometheusSource } from '@mgpu/api';
import { kubeConfigForServer } from '@mgpu/kube-client';
import { seedRequest } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { type EmbeddedCluster, startEmbeddedCluster } from '../test-support/embedded-cluster.js';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';
import { createSimulatedDeployment, settledVerdicts } from './usage-verdicts-support.js';

const SCRAPE_INTERVAL_SECONDS = 10;
const IDLE_AFTER_SECONDS = 3;
const suffix = Date.now().toString(36);
const idleName = `slow-idle-${suffix}`;
const busyName = `slow-busy-${suffix}`;

let cluster: EmbeddedCluster;
let prometheus: PrometheusServer;
let bff: RunningBff | undefined;
let caller: AppCaller;
let source: PrometheusSource;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => {}, gpuMetricsPort: 0 });
  const exporter = new URL(cluster.gpuMetrics.url ?? '');
  prometheus = await startPrometheus({
    targets: [exporter.host],
    scrapeIntervalSeconds: SCRAPE_INTERVAL_SECONDS,
  });
  source = new PrometheusSource({ url: prometheus.url });
  const connection = embeddedConnection(
    cluster,
    async () => {},
    () => cluster.gpuMetrics.samples(),
  );
  bff = await startBff({
    connection,
    port: 0,
    logger: false,
    usage: { source, idleAfterSeconds: IDLE_AFTER_SECONDS, maxAgeSeconds: 0 },
  });
  caller = createCaller(bff.context);
  for (const [name, percent] of [
    [idleName, '0'],
    [busyName, '80'],
  ] as const) {
    const preview = await caller.workload.preview({ request: seedRequest(name), lang: 'en' });
    await createSimulatedDeployment(kubeConfigForServer(cluster), preview.manifest, percent);
  }
}, 120_000);

afterAll(async () => {
  await bff?.close();
  await prometheus?.close();
  await cluster?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Prometheus scraping less often than --idle-after', () => {
  it('the 0 % workload is idle and the 80 % one is not at every read, never unknown between scrapes', {
    timeout: 200_000,
  }, async () => {
    const read = () => caller.usage.workloads({ namespace: 'default' });
    await settledVerdicts(read, { idle: idleName, busy: busyName });
    // Reads spread over more than one scrape interval: most fall where the last 3 s hold no sample.
    const seen: { idle: unknown; busy: unknown }[] = [];
    const until = Date.now() + (SCRAPE_INTERVAL_SECONDS + 3) * 1000;
    while (Date.now() < until) {
      const rows = new Map((await read()).map((row) => [row.workload, row]));
      seen.push({ idle: rows.get(idleName)?.idle, busy: rows.get(busyName)?.idle });
      await pause(1300);
    }
    expect(seen.length).toBeGreaterThanOrEqual(SCRAPE_INTERVAL_SECONDS / 2);
    expect(seen.filter((verdict) => verdict.idle !== true || verdict.busy !== false)).toEqual([]);
  });

  it('the pool history’s card read knows every card at every read of a window shorter than a scrape', {
    timeout: 60_000,
  }, async () => {
    const cards = (
      await source.cardUsage({
        windowSeconds: 600,
        idleThresholdPercent: 5,
        idleAfterSeconds: 600,
      })
    ).map((card) => `${card.node}/${card.card}`);
    expect(cards.length).toBeGreaterThan(0);
    const until = Date.now() + (SCRAPE_INTERVAL_SECONDS + 2) * 1000;
    while (Date.now() < until) {
      const means = await source.cardMeanUtilization(2);
      expect([...means.keys()].sort()).toEqual([...cards].sort());
      await pause(1500);
    }
  });
});
