/**
 * The embedded exporter's source (issue 28): what it keeps of the exporter's snapshots and what
 * it makes of them — the window's mean, the quiet stretch the idle verdict reads, and nothing
 * older than it keeps. The snapshots are written here as the exporter would serve them.
 */
import { ExporterSource, type UsageQuery } from '@mgpu/api';
import type { GpuUsageSnapshot } from '@mgpu/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';

const INTERVAL_MS = 1000;
const query: UsageQuery = { windowSeconds: 60, idleThresholdPercent: 5, idleAfterSeconds: 30 };

/** One container at `percent` of its 50 % share of card 0 of n1, at `at`. */
function snapshot(at: number, percent: number): GpuUsageSnapshot {
  return {
    at,
    simulated: true,
    cards: [
      {
        node: 'n1',
        card: 0,
        uuid: 'GPU-n1-0',
        model: 'A100',
        memoryMiB: 40960,
        utilizationPercent: percent / 2,
        memoryUsedMiB: 1000,
        memoryFreeMiB: 39960,
      },
    ],
    instances: [
      {
        node: 'n1',
        card: 0,
        namespace: 'team-a',
        pod: 'web-1',
        container: 'main',
        allocatedComputePercent: 50,
        memoryLimitMiB: 4096,
        utilizationPercent: percent,
        memoryUsedMiB: 1000,
      },
    ],
  };
}

/** A source reading `levels` one per interval (the last one from then on). */
function sourceOver(levels: readonly number[], retentionMs?: number): ExporterSource {
  vi.useFakeTimers({ now: 0 });
  let read = 0;
  const source = new ExporterSource({
    read: () => {
      const level = levels[Math.min(read, levels.length - 1)] ?? 0;
      const at = read * INTERVAL_MS;
      read += 1;
      return snapshot(at, level);
    },
    sampleIntervalMs: INTERVAL_MS,
    ...(retentionMs !== undefined ? { retentionMs } : {}),
  });
  vi.advanceTimersByTime(INTERVAL_MS * (levels.length - 1));
  return source;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the embedded exporter’s source', () => {
  it('has figures at once: the first snapshot is read when it starts', async () => {
    const source = sourceOver([80]);
    const [instance] = await source.instanceUsage(query);
    expect(instance).toMatchObject({ namespace: 'team-a', pod: 'web-1', card: 0 });
    expect(instance?.utilization).toEqual({ meanPercent: 80, sampledSeconds: 0, quietSeconds: 0 });
    source.close();
  });

  it('averages over the window and measures how long the series has stayed under the threshold', async () => {
    // Busy for 10 s, then quiet for 40 s.
    const source = sourceOver([...Array(10).fill(60), ...Array(41).fill(1)]);
    const [instance] = await source.instanceUsage(query);
    expect(instance?.utilization.quietSeconds).toBe(40);
    expect(instance?.utilization.sampledSeconds).toBe(50);
    expect(instance?.utilization.meanPercent).toBeCloseTo((10 * 60 + 41 * 1) / 51);
    const [card] = await source.cardUsage(query);
    expect(card).toMatchObject({ uuid: 'GPU-n1-0', model: 'A100', memoryFreeMiB: 39960 });
    expect(card?.utilization.quietSeconds).toBe(40);
    source.close();
  });

  it('gives the pool history each card’s mean alone, over the window it asks', async () => {
    // The card at half its one instance: 30 for 10 s, then 0.5 for 40 s.
    const source = sourceOver([...Array(10).fill(60), ...Array(41).fill(1)]);
    const lastTen = await source.cardMeanUtilization(10);
    expect([...lastTen.keys()]).toEqual(['n1/0']);
    expect(lastTen.get('n1/0')).toBeCloseTo(0.5);
    expect((await source.cardMeanUtilization(3600)).get('n1/0')).toBeCloseTo(
      (10 * 30 + 41 * 0.5) / 51,
    );
    source.close();
  });

  it('forgets what is older than it keeps: a long-past busy spell no longer counts', async () => {
    // Busy for 30 s long ago, quiet for the last 20 s; only 10 s are kept.
    const source = sourceOver([...Array(30).fill(90), ...Array(21).fill(0)], 10_000);
    const [instance] = await source.instanceUsage({ ...query, windowSeconds: 3600 });
    expect(instance?.utilization.meanPercent).toBe(0);
    expect(instance?.utilization.sampledSeconds).toBeLessThanOrEqual(11);
    source.close();
  });
});
