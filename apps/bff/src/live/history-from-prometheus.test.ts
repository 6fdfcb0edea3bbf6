/**
 * With `--prometheus-url` the pool history is what Prometheus kept of the console's own
 * `/metrics` series (issue 30): Debian's Prometheus scrapes a console's metrics port and the
 * embedded cluster's GPU exporter every second; the console's history then says it comes from
 * Prometheus, with the pools' figures the dashboard shows, and a second console started later,
 * with nothing in its memory, shows the history from before it started — one line per pool
 * although both consoles export the same figures.
 */
import {
  createCaller,
  embeddedConnection,
  PrometheusHistory,
  PrometheusHttp,
  PrometheusSource,
} from '@mgpu/api';
import { type EmbeddedCluster, startEmbeddedCluster } from '@mgpu/cluster-sim';
import type { ClusterHistory, ClusterSummary } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { eventually } from '../test-support/bff-harness.js';
import { freePort, type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';

let cluster: EmbeddedCluster;
let prometheus: PrometheusServer;
let first: RunningBff;
let firstClosed = false;
let second: RunningBff | undefined;
/** A console Prometheus does not scrape, started once the others are gone. */
let unscraped: RunningBff | undefined;
/** The two consoles' metrics ports, named in Prometheus's scrape config before they listen. */
let ports: [number, number];
/** Just before the first console started: Prometheus cannot hold its figures from before. */
let firstStartedAt = 0;

const startConsole = (metricsPort: number) =>
  startBff({
    connection: embeddedConnection(cluster),
    port: 0,
    logger: false,
    metricsPort,
    usage: { source: new PrometheusSource({ url: prometheus.url }) },
    history: { intervalMs: 1000, retentionMs: 120_000 },
  });

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => undefined, gpuMetricsPort: 0 });
  ports = [await freePort(), await freePort()];
  prometheus = await startPrometheus({
    targets: [
      new URL(cluster.gpuMetrics.url ?? '').host,
      ...ports.map((port) => `127.0.0.1:${port}`),
    ],
  });
  firstStartedAt = Date.now();
  first = await startConsole(ports[0]);
}, 120_000);
afterAll(async () => {
  await unscraped?.close();
  await second?.close();
  if (!firstClosed) await first?.close();
  await prometheus?.close();
  await cluster?.stop();
});

/** The newest sample's pools, each as the dashboard's pool list shows its figures. */
function expectPoolsAsSummary(history: ClusterHistory, summary: ClusterSummary): void {
  const newest = history.samples.at(-1);
  expect(newest?.pools.map((pool) => pool.pool)).toEqual(summary.pools.map((pool) => pool.pool));
  for (const pool of summary.pools) {
    const sample = newest?.pools.find((entry) => entry.pool === pool.pool);
    expect(sample, pool.pool).toMatchObject({
      computeAllocatedPercent: pool.compute.allocated,
      computeAllocatablePercent: pool.compute.allocatable,
      memoryAllocatedMiB: pool.memoryMiB.allocated,
      memoryAllocatableMiB: pool.memoryMiB.allocatable,
      strandedComputePercent: pool.stranded.computePercent,
      strandedMemoryMiB: pool.stranded.memoryMiB,
      largestFitComputePercent: pool.largestFit.computePercent,
    });
  }
}

describe('the pool history from Prometheus', () => {
  it('says it comes from Prometheus and carries the pools as the dashboard shows them', async () => {
    const caller = createCaller(first.context);
    const history = await eventually(async () => {
      const read = await caller.cluster.history();
      return read.source === 'prometheus' && read.samples.length >= 3 ? read : undefined;
    }, 'the history from Prometheus');
    expectPoolsAsSummary(history, await caller.cluster.summary());
    // It begins where Prometheus's figures of the console begin, a point a second, oldest first.
    expect(history.startedAt).toBe(history.samples[0]?.at);
    expect(Date.parse(history.startedAt)).toBeGreaterThanOrEqual(firstStartedAt - 1000);
    expect(history.intervalMs).toBe(1000);
    const times = history.samples.map((sample) => Date.parse(sample.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The used compute beside it is the console's own reading of the cards, as without it.
    const used = await eventually(async () => {
      const read = await caller.cluster.history();
      const pools = read.samples.at(-1)?.pools ?? [];
      return pools.some((pool) => typeof pool.computeUsedPercent === 'number') ? pools : undefined;
    }, 'the used compute beside the allocation');
    for (const pool of used) {
      if (typeof pool.computeUsedPercent !== 'number') continue;
      expect(pool.computeUsedPercent).toBeGreaterThanOrEqual(0);
      expect(pool.computeUsedPercent).toBeLessThanOrEqual(pool.computeAllocatablePercent);
    }
  });

  it('shows a console started later the history from before it started, one line per pool', async () => {
    await prometheus.waitForScrapes(3);
    const secondStartedAt = Date.now();
    second = await startConsole(ports[1]);
    const caller = createCaller(second.context);
    // Its very first answer: nothing of that is in its memory.
    const history = await caller.cluster.history();
    expect(history.source).toBe('prometheus');
    expect(Date.parse(history.startedAt)).toBeLessThanOrEqual(secondStartedAt - 3000);
    expect(Date.parse(history.startedAt)).toBeGreaterThanOrEqual(firstStartedAt - 1000);
    // The used compute it read from Prometheus at start sits beside the allocation before it.
    await eventually(async () => {
      const read = await caller.cluster.history();
      return read.samples.some(
        (sample) =>
          Date.parse(sample.at) < secondStartedAt &&
          sample.pools.some((pool) => typeof pool.computeUsedPercent === 'number'),
      );
    }, 'the used compute before the start, beside the allocation');
    // Once Prometheus scraped both, the figures are the pools', not twice them.
    await prometheus.waitForScrapes(2);
    const bothScraped = Date.now();
    const later = await eventually(async () => {
      const read = await caller.cluster.history();
      const newest = Date.parse(read.samples.at(-1)?.at ?? '');
      return newest >= bothScraped ? read : undefined;
    }, 'a read after both consoles were scraped');
    expect(later.source).toBe('prometheus');
    expectPoolsAsSummary(later, await caller.cluster.summary());
  });

  it('is the console’s own history when Prometheus does not answer', async () => {
    const down = new PrometheusHistory({
      // Nothing listens on port 9 (discard) on loopback.
      prometheus: new PrometheusHttp({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }),
    });
    const history = await createCaller({
      ...first.context,
      prometheusHistory: down,
    }).cluster.history();
    expect(history.source).toBe('console');
    expect(history.startedAt).toBe((await first.context.history.snapshot()).startedAt);
  });

  it('is the console’s own history once Prometheus no longer scrapes any console', async () => {
    await second?.close();
    second = undefined;
    unscraped = await startConsole(await freePort());
    const caller = createCaller(unscraped.context);
    await first.close();
    firstClosed = true;
    // The others' series end where they stopped and stay within the 2 min retention long after
    // this wait: shown, the charts would stand still there. A few steps on, the console's own.
    const own = await eventually(
      async () => {
        const read = await caller.cluster.history();
        return read.source === 'console' ? read : undefined;
      },
      'the console’s own history once Prometheus’s newest point is old',
      300,
    );
    expect(own.startedAt).toBe((await unscraped.context.history.snapshot()).startedAt);
  });
});
