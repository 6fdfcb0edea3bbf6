import { PoolHistory, readCardUse } from '@mgpu/api';
import { describe, expect, it } from 'vitest';
import { eventually, startBffTest } from '../test-support/bff-harness.js';

// The exporter read often, so the first card readings come within a test's patience.
const harness = startBffTest({ usage: { exporterSampleIntervalMs: 500 } });

describe('the per-pool history', () => {
  it('keeps retention / interval samples, oldest first, with the pools the dashboard shows', async () => {
    const history = new PoolHistory(harness.bff.context.views, {
      intervalMs: 10_000,
      retentionMs: 30_000,
    });
    const start = Date.parse('2026-12-03T10:00:00Z');
    for (let index = 0; index < 5; index++) history.sample(start + index * 10_000);
    const snapshot = history.ownSnapshot();
    expect(snapshot.intervalMs).toBe(10_000);
    expect(snapshot.retentionMs).toBe(30_000);
    // The ring holds three: the two oldest were overwritten.
    expect(snapshot.samples.map((sample) => sample.at)).toEqual([
      '2026-12-03T10:00:20.000Z',
      '2026-12-03T10:00:30.000Z',
      '2026-12-03T10:00:40.000Z',
    ]);
    const summary = await harness.caller.cluster.summary();
    const last = snapshot.samples.at(-1);
    expect(last?.pools.map((pool) => pool.pool)).toEqual(summary.pools.map((pool) => pool.pool));
    for (const pool of summary.pools) {
      expect(last?.pools.find((sample) => sample.pool === pool.pool)).toMatchObject({
        computeAllocatedPercent: pool.compute.allocated,
        memoryAllocatedMiB: pool.memoryMiB.allocated,
        strandedComputePercent: pool.stranded.computePercent,
        strandedMemoryMiB: pool.stranded.memoryMiB,
        largestFitComputePercent: pool.largestFit.computePercent,
      });
    }
  });

  it('puts each pool’s used compute beside its allocated, from the usage source', {
    timeout: 60_000,
  }, async () => {
    const { views, usage } = harness.bff.context;
    const history = new PoolHistory(views, { cardUse: () => readCardUse(usage) });
    const latest = async () => {
      await history.readCardUse();
      history.sample();
      return history.ownSnapshot().samples.at(-1)?.pools ?? [];
    };
    if (usage.source.kind === 'unavailable') {
      // The real tier has no GPU exporter: unknown, never 0.
      for (const pool of await latest()) expect(pool.computeUsedPercent).toBeNull();
      return;
    }
    const pools = await eventually(async () => {
      const read = await latest();
      return read.length > 0 && read.every((pool) => typeof pool.computeUsedPercent === 'number')
        ? read
        : undefined;
    }, 'every pool’s used compute');
    for (const pool of pools) {
      const used = pool.computeUsedPercent ?? Number.NaN;
      // In the unit of the allocation (100 a card), within what the pool has.
      expect(used).toBeGreaterThanOrEqual(0);
      expect(used, pool.pool).toBeLessThanOrEqual(pool.computeAllocatablePercent);
      // A card nobody holds does no work.
      if (pool.computeAllocatedPercent === 0) expect(used, pool.pool).toBe(0);
    }
  });

  it('begins at the start with a source that keeps no history (the exporter, or none)', () => {
    // Only Prometheus answers a range query: the in-process exporter kept nothing before.
    expect(harness.bff.context.usage.source.cardUtilizationRange).toBeUndefined();
    expect(harness.bff.context.history.ownSnapshot().usedBefore).toBeUndefined();
  });

  it('leaves used compute unknown, never 0, when the source has nothing to say', async () => {
    const history = new PoolHistory(harness.bff.context.views, { cardUse: async () => null });
    await history.readCardUse();
    history.sample();
    const pools = history.ownSnapshot().samples.at(-1)?.pools ?? [];
    expect(pools.length).toBeGreaterThan(0);
    for (const pool of pools) expect(pool.computeUsedPercent).toBeNull();
  });

  it('is served by cluster.history, sampled from the start', async () => {
    const history = await harness.caller.cluster.history();
    expect(history.intervalMs).toBe(10_000);
    expect(history.retentionMs).toBe(60 * 60_000);
    expect(new Date(history.startedAt).toISOString()).toBe(history.startedAt);
    // The BFF samples as it starts, once the informers have listed the nodes.
    expect(history.samples.length).toBeGreaterThan(0);
  });
});
