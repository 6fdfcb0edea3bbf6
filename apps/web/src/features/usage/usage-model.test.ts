import type { UsageCards, WorkloadUsage } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  cardUsageIndex,
  efficiencyPercent,
  formatComputePercent,
  formatGpuHours,
  nullsLast,
  sourceOfAll,
  unknownReasonOf,
  usageByWorkload,
  workloadUsageKey,
} from './usage-model.js';

const usage = (overrides: Partial<WorkloadUsage>): WorkloadUsage => ({
  namespace: 'team-a',
  workload: 'train',
  kind: 'Deployment',
  source: 'embedded',
  simulated: true,
  allocated: { computePercent: 100, memoryMiB: 8192 },
  used: { computePercent: 80, memoryMiB: 4000 },
  efficiency: 0.8,
  efficiencyUnknownReason: null,
  idleGpuHours: 0,
  perCardOnly: false,
  idle: false,
  instances: 2,
  ...overrides,
});

describe('a workload usage column', () => {
  it('finds each listed workload by kind, namespace and name, a Job never taking a Deployment’s', () => {
    const byKey = usageByWorkload([
      usage({ kind: 'Deployment', efficiency: 0.8 }),
      usage({ kind: 'Job', efficiency: 0.1 }),
    ]);
    expect(byKey.get(workloadUsageKey('Deployment', 'team-a', 'train'))?.efficiency).toBe(0.8);
    expect(byKey.get(workloadUsageKey('Job', 'team-a', 'train'))?.efficiency).toBe(0.1);
    expect(byKey.get(workloadUsageKey('StatefulSet', 'team-a', 'train'))).toBeUndefined();
  });

  it('says an efficiency in whole percent, and an unknown one not at all (never "0%")', () => {
    expect(efficiencyPercent(0.8)).toBe('80%');
    expect(efficiencyPercent(0.004)).toBe('0%');
    expect(efficiencyPercent(null)).toBeNull();
  });

  it('keeps a short idle spell visible in GPU-hours', () => {
    expect(formatGpuHours(0.0125)).toBe('0.01');
    expect(formatGpuHours(3)).toBe('3');
  });

  it('says why a figure is unknown: the server’s reason, else the missing source', () => {
    expect(
      unknownReasonOf(usage({ efficiency: null, efficiencyUnknownReason: 'card-series-only' })),
    ).toBe('card-series-only');
    expect(unknownReasonOf(usage({ source: 'unavailable', efficiency: null }))).toBe('no-source');
    expect(unknownReasonOf(usage({ efficiency: null, perCardOnly: true }))).toBe(
      'card-series-only',
    );
  });

  it('labels the page simulated when any figure is the embedded model’s', () => {
    expect(sourceOfAll([])).toBeUndefined();
    expect(sourceOfAll([usage({ source: 'prometheus', simulated: false })])).toEqual({
      source: 'prometheus',
      simulated: false,
    });
    expect(sourceOfAll([usage({})])).toEqual({ source: 'embedded', simulated: true });
  });
});

describe('figures beside the allocation', () => {
  it('writes used compute with the allocation’s rounding (33.33%, not 33.3%)', () => {
    expect(formatComputePercent(100 / 3)).toBe('33.33%');
    expect(formatComputePercent(60)).toBe('60%');
  });
});

describe('sorting the namespace table', () => {
  const rows = [{ e: 0.5 }, { e: null }, { e: 0.1 }, { e: 0.9 }];
  const sorter = nullsLast((row: { e: number | null }) => row.e);
  // As antd's table sorts: the comparator's answer, negated for descend.
  const sorted = (order: 'ascend' | 'descend') =>
    [...rows]
      .sort((a, b) => (order === 'ascend' ? 1 : -1) * sorter(a, b, order))
      .map((row) => row.e);

  it('puts unknown efficiencies last whichever way it sorts', () => {
    expect(sorted('ascend')).toEqual([0.1, 0.5, 0.9, null]);
    expect(sorted('descend')).toEqual([0.9, 0.5, 0.1, null]);
  });
});

describe('usage on cards', () => {
  const answer: UsageCards = {
    source: 'embedded',
    simulated: true,
    windowMinutes: 10,
    idleThresholdPercent: 5,
    idleAfterSeconds: 1800,
    cards: [
      {
        node: 'n1',
        card: 0,
        uuid: null,
        model: null,
        used: { computePercent: 55, memoryMiB: 9000 },
        memoryFreeMiB: 7000,
        instances: [{ id: 'a/p/c/0', used: { computePercent: 40, memoryMiB: 3000 } }],
        withheld: null,
      },
      {
        node: 'n1',
        card: 1,
        uuid: null,
        model: null,
        used: { computePercent: 20, memoryMiB: 100 },
        memoryFreeMiB: 16000,
        instances: [],
        withheld: null,
      },
    ],
  };

  it('finds a card’s figure by node and card, and an instance’s by its record id', () => {
    const index = cardUsageIndex([answer]);
    expect(index.cards.get('n1/1')?.used.computePercent).toBe(20);
    expect(index.instances.get('a/p/c/0')?.computePercent).toBe(40);
    // A card with only its own series gives no instance a figure of its own.
    expect([...index.instances.keys()]).toEqual(['a/p/c/0']);
  });
});
