/**
 * Through Prometheus the pool history's used compute reaches back before the console started
 * (issue 28): Debian's Prometheus scrapes the embedded cluster's GPU exporter for a while, then a
 * console starts with `--prometheus-url` and its history already shows that while, read in one
 * range query for every card, beside the pools the dashboard shows.
 */
import {
  createCaller,
  embeddedConnection,
  PoolHistory,
  PrometheusSource,
  readCardUse,
  readCardUseBefore,
  usageContextFor,
} from '@mgpu/api';
import { type EmbeddedCluster, startEmbeddedCluster } from '@mgpu/cluster-sim';
import { poolComputeUsed } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { eventually } from '../test-support/bff-harness.js';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';

let cluster: EmbeddedCluster;
let prometheus: PrometheusServer;
let bff: RunningBff;
/** When the cards' use was first in Prometheus: before the console started. */
let scrapedSince = 0;

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => undefined, gpuMetricsPort: 0 });
  prometheus = await startPrometheus({ targets: [new URL(cluster.gpuMetrics.url ?? '').host] });
  scrapedSince = Date.now();
  // A few seconds of the cards' use in Prometheus before the console exists.
  await prometheus.waitForScrapes(6);
  bff = await startBff({
    connection: embeddedConnection(cluster),
    port: 0,
    logger: false,
    usage: { source: new PrometheusSource({ url: prometheus.url }) },
    history: { intervalMs: 1000, retentionMs: 120_000 },
  });
}, 120_000);
afterAll(async () => {
  await bff?.close();
  await prometheus?.close();
  await cluster?.stop();
});

describe('the pool history through Prometheus', () => {
  it('shows the used compute from before the console started, per pool', async () => {
    const caller = createCaller(bff.context);
    // The range is read once at start, beside the first sample, never waited for by it.
    const history = await eventually(async () => {
      const read = await caller.cluster.history();
      return read.usedBefore ? read : undefined;
    }, 'the used compute from before the start');
    const startedAt = Date.parse(history.startedAt);
    const before = history.usedBefore ?? [];
    const times = before.map((point) => Date.parse(point.at));
    // Oldest first, all before the start, reaching back to Prometheus's first scrapes.
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((at) => at < startedAt)).toBe(true);
    expect(times[0]).toBeLessThanOrEqual(startedAt - 3000);
    expect(times[0]).toBeGreaterThanOrEqual(scrapedSince - 2000);
    const summary = await caller.cluster.summary();
    const gpuPools = summary.pools.filter((pool) => pool.compute.allocatable > 0);
    expect(gpuPools.length).toBeGreaterThan(0);
    // What the console reads now, from the same Prometheus, over the last minute.
    const now = await readCardUse(bff.context.usage);
    const usedNow = poolComputeUsed(bff.context.views.nodeStates(), now ?? new Map());
    const last = before.at(-1);
    for (const pool of gpuPools) {
      const past = last?.pools.find((entry) => entry.pool === pool.pool);
      expect(past?.computeAllocatablePercent).toBe(pool.compute.allocatable);
      const used = past?.computeUsedPercent;
      // A figure, in the allocation's unit (100 a card), within what the pool has.
      expect(typeof used, pool.pool).toBe('number');
      expect(used).toBeGreaterThanOrEqual(0);
      expect(used).toBeLessThanOrEqual(pool.compute.allocatable);
      // The past agrees with the present: the model moves only a little in seconds.
      expect(Math.abs((used ?? 0) - (usedNow.get(pool.pool) ?? Number.NaN))).toBeLessThanOrEqual(
        0.1 * pool.compute.allocatable,
      );
      // Cards nobody holds did no work before the start either.
      if (pool.compute.allocated === 0) expect(used, pool.pool).toBe(0);
    }
  });

  it('says its used compute is simulated: the series Prometheus holds say so in their # HELP', async () => {
    // As the console does at start (main.ts), which reads the series' metadata.
    await (bff.context.usage.source as PrometheusSource).probe();
    const history = await createCaller(bff.context).cluster.history();
    expect(history.usage).toEqual({ source: 'prometheus', simulated: true });
  });

  it('begins at the start when Prometheus does not answer the range query', async () => {
    const down = usageContextFor(embeddedConnection(cluster), {
      // Nothing listens on port 9 (discard) on loopback.
      source: new PrometheusSource({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }),
    });
    const history = new PoolHistory(bff.context.views, {
      cardUseBefore: (range) => readCardUseBefore(down, range),
    });
    await history.readCardUseBefore(Date.now());
    history.sample();
    const snapshot = history.ownSnapshot();
    expect(snapshot.samples).toHaveLength(1);
    expect(snapshot.usedBefore).toBeUndefined();
  });
});
