import {
  decodeHistory,
  encodeHistory,
  type HistorySample,
  PUBLISHED_HISTORY_MAX_BYTES,
  type PublishedHistory,
} from '@mgpu/api';
import type { PoolSample } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';

const START = Date.parse('2026-12-06T08:00:00Z');

function poolSample(pool: string, index: number, used?: number | null): PoolSample {
  return {
    pool,
    computeAllocatedPercent: (index * 37) % 800,
    computeAllocatablePercent: 800,
    ...(used !== undefined ? { computeUsedPercent: used } : {}),
    memoryAllocatedMiB: (index * 4096) % 327_680,
    memoryAllocatableMiB: 327_680,
    strandedComputePercent: index % 3,
    strandedMemoryMiB: (index % 5) * 1024,
    largestFitComputePercent: 100 - (index % 100),
    pendingPods: index % 7,
  };
}

/** An hour of 10 s samples of `pools` pools, as a leader would publish it. */
function hourOf(pools: number): PublishedHistory {
  const names = Array.from({ length: pools }, (_, index) => `pool-${index}`);
  const samples = Array.from(
    { length: 360 },
    (_, index): HistorySample => ({
      at: START + index * 10_000,
      pools: names.map((name) => poolSample(name, index, index % 2 === 0 ? 12.5 : null)),
    }),
  );
  return { sampledBy: 'mgpu-console-7d9f-abcde', startedAt: START, intervalMs: 10_000, samples };
}

describe('the published pool history', () => {
  it('reads back as it was sampled: pools that came and went, used compute known or not', () => {
    const history: PublishedHistory = {
      sampledBy: 'mgpu-console-0',
      startedAt: START - 5_000,
      intervalMs: 10_000,
      samples: [
        { at: START, pools: [poolSample('a100', 0, 40), poolSample('h800', 0, null)] },
        // A pool added meanwhile, one gone: each sample keeps exactly its own pools.
        { at: START + 10_000, pools: [poolSample('h800', 1, 80), poolSample('l40', 1, null)] },
        { at: START + 20_000, pools: [poolSample('l40', 2, 7.25)] },
      ],
    };
    expect(decodeHistory(encodeHistory(history))).toEqual(history);
    // Without a usage source the samples have no used figure at all, not a null one.
    const unused: PublishedHistory = {
      startedAt: START,
      intervalMs: 10_000,
      samples: [{ at: START, pools: [poolSample('a100', 3)] }],
    };
    expect(decodeHistory(encodeHistory(unused))).toEqual(unused);
  });

  it('is no history when the ConfigMap holds something else', () => {
    expect(decodeHistory('not json')).toBeUndefined();
    expect(decodeHistory(JSON.stringify({ v: 2, samples: [] }))).toBeUndefined();
  });

  it('writes an hour of a few pools whole', () => {
    const history = hourOf(8);
    const text = encodeHistory(history);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PUBLISHED_HISTORY_MAX_BYTES);
    expect(decodeHistory(text)?.samples).toHaveLength(360);
  });

  it('fits a ConfigMap with many pools: the oldest samples go, and it says since when', () => {
    const history = hourOf(150);
    const text = encodeHistory(history);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(PUBLISHED_HISTORY_MAX_BYTES);
    const kept = decodeHistory(text);
    const samples = kept?.samples ?? [];
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.length).toBeLessThan(360);
    // The newest are kept, in order, each with every pool.
    expect(samples).toEqual(history.samples.slice(-samples.length));
    // The history now reaches back to its oldest kept sample, not to when sampling began.
    expect(kept?.startedAt).toBe(samples[0]?.at);
    expect(kept?.sampledBy).toBe(history.sampledBy);
  });
});
