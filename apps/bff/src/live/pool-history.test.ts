import { PoolHistory } from '@mgpu/api';
import { describe, expect, it } from 'vitest';
import { startBffTest } from '../test-support/bff-harness.js';

const harness = startBffTest();

describe('the per-pool history', () => {
  it('keeps retention / interval samples, oldest first, with the pools the dashboard shows', async () => {
    const history = new PoolHistory(harness.bff.context.views, {
      intervalMs: 10_000,
      retentionMs: 30_000,
    });
    const start = Date.parse('2026-12-03T10:00:00Z');
    for (let index = 0; index < 5; index++) history.sample(start + index * 10_000);
    const snapshot = history.snapshot();
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

  it('is served by cluster.history, sampled from the start', async () => {
    const history = await harness.caller.cluster.history();
    expect(history.intervalMs).toBe(10_000);
    expect(history.retentionMs).toBe(60 * 60_000);
    expect(new Date(history.startedAt).toISOString()).toBe(history.startedAt);
    // The BFF samples as it starts, once the informers have listed the nodes.
    expect(history.samples.length).toBeGreaterThan(0);
  });
});
