import { describe, expect, it } from 'vitest';
import { cardFigures } from './card-figures.js';
import {
  type CardReading,
  cardKey,
  type HeldInstance,
  instanceReadingKey,
  instancesPerCard,
  type UsageReadings,
  type UtilizationReading,
} from './readings.js';
import { parseUsageDuration } from './terms.js';
import { namespaceVerdict, workloadVerdict } from './verdicts.js';

const settings = { idleThresholdPercent: 5, idleAfterSeconds: 1800 };

const held = (pod: string, node: string, card: number, computePercent = 50): HeldInstance => ({
  id: `team-a/${pod}/main/${card}`,
  node,
  card,
  requested: { computePercent, memoryMiB: 4096 },
});

const series = (meanPercent: number | null, quietSeconds: number | null): UtilizationReading => ({
  meanPercent,
  quietSeconds,
  memoryUsedMiB: meanPercent === null ? null : 1000,
});

function readings(
  instances: [HeldInstance, UtilizationReading][],
  cards: [string, number, number | null][] = [],
  source: UsageReadings['source'] = 'embedded',
): UsageReadings {
  return {
    source,
    simulated: source === 'embedded',
    failed: false,
    instances: new Map(
      instances.map(([instance, reading]) => [
        instanceReadingKey(instance.node, instance.id),
        reading,
      ]),
    ),
    cards: new Map(
      cards.map(([node, card, meanPercent]): [string, CardReading] => [
        cardKey(node, card),
        {
          node,
          card,
          uuid: `GPU-${node}-${card}`,
          model: 'A100',
          memoryFreeMiB: 2000,
          ...series(meanPercent, 0),
        },
      ]),
    ),
  };
}

describe('workload efficiency', () => {
  it('is used ÷ allocated: two replicas at 80 % of their own 50 % read 0.8, not idle', () => {
    const a = held('web-1', 'n1', 0);
    const b = held('web-2', 'n1', 1);
    const verdict = workloadVerdict(
      [a, b],
      readings([
        [a, series(80, 0)],
        [b, series(80, 0)],
      ]),
      settings,
    );
    expect(verdict.allocated).toEqual({ computePercent: 100, memoryMiB: 8192 });
    expect(verdict.used.computePercent).toBeCloseTo(80);
    expect(verdict.efficiency).toBeCloseTo(0.8);
    expect(verdict.efficiencyUnknownReason).toBeNull();
    expect(verdict.idle).toBe(false);
    expect(verdict.idleGpuHours).toBe(0);
  });

  it('flags a workload quiet for --idle-after idle, with the GPU-hours it held idle', () => {
    const a = held('batch-1', 'n1', 0, 50);
    const b = held('batch-1', 'n1', 1, 100);
    const verdict = workloadVerdict(
      [a, { ...b, id: 'team-a/batch-1/main/1' }],
      readings([
        [a, series(0, 3600)],
        [{ ...b, id: 'team-a/batch-1/main/1' }, series(1, 3600)],
      ]),
      settings,
    );
    expect(verdict.efficiency).toBeCloseTo(0.01 / 1.5);
    expect(verdict.idle).toBe(true);
    // Half a card and a whole card, each quiet for an hour.
    expect(verdict.idleGpuHours).toBeCloseTo(1.5);
  });

  it('is not idle while one replica is busy, nor before --idle-after has passed', () => {
    const a = held('web-1', 'n1', 0);
    const b = held('web-2', 'n1', 1);
    const oneBusy = workloadVerdict(
      [a, b],
      readings([
        [a, series(0, 3600)],
        [b, series(60, 0)],
      ]),
      settings,
    );
    expect(oneBusy.idle).toBe(false);
    const tooSoon = workloadVerdict([a], readings([[a, series(0, 600)]]), settings);
    expect(tooSoon.idle).toBe(false);
    expect(tooSoon.efficiency).toBe(0);
  });

  it('a shared card with only card series: efficiency null with that reason, the figure the card’s', () => {
    const mine = held('web-1', 'n1', 0, 30);
    const theirs = { ...held('other-1', 'n1', 0, 50), id: 'team-b/other-1/main/0' };
    const read = readings([], [['n1', 0, 64]], 'prometheus');
    const onCard = instancesPerCard([mine, theirs]);
    const verdict = workloadVerdict([mine], read, settings, onCard);
    expect(verdict.efficiency).toBeNull();
    expect(verdict.efficiencyUnknownReason).toBe('card-series-only');
    expect(verdict.used.computePercent).toBeNull();
    expect(verdict.idle).toBeNull();
    expect(verdict.perCardOnly).toBe(true);
    const [card] = cardFigures([mine, theirs], read, onCard);
    expect(card?.used.computePercent).toBe(64);
    expect(card?.instances.map((instance) => instance.used.computePercent)).toEqual([null, null]);
  });

  it('lists a card whose holders the caller may not see whole, without their instances', () => {
    const theirs = { ...held('other-1', 'n2', 3, 50), id: 'team-b/other-1/main/3' };
    const read = readings([], [], 'unavailable');
    const cards = cardFigures([], read, instancesPerCard([theirs]), [theirs]);
    expect(cards).toEqual([
      expect.objectContaining({
        node: 'n2',
        card: 3,
        instances: [],
        used: { computePercent: null, memoryMiB: null },
      }),
    ]);
  });

  it('a card held by one instance only: the card’s figure is its own', () => {
    const alone = held('web-1', 'n1', 0, 50);
    const verdict = workloadVerdict([alone], readings([], [['n1', 0, 40]], 'prometheus'), settings);
    expect(verdict.efficiency).toBeCloseTo(0.8);
    expect(verdict.perCardOnly).toBe(false);
  });

  it('no source: every figure null with source unavailable, never 0', () => {
    const a = held('web-1', 'n1', 0);
    const verdict = workloadVerdict(
      [{ ...a, vmem_info: { used: [{ used_mib: 700 }] } }],
      readings([], [], 'unavailable'),
      settings,
    );
    expect(verdict).toMatchObject({
      source: 'unavailable',
      used: { computePercent: null, memoryMiB: null },
      efficiency: null,
      efficiencyUnknownReason: 'no-source',
      idle: null,
      idleGpuHours: null,
    });
  });

  it('an instance without a sample yet leaves the workload unknown, not less efficient', () => {
    const a = held('web-1', 'n1', 0);
    const b = held('web-2', 'n1', 1);
    const verdict = workloadVerdict([a, b], readings([[a, series(80, 0)]]), settings);
    expect(verdict.efficiency).toBeNull();
    expect(verdict.efficiencyUnknownReason).toBe('no-samples');
  });

  it('memory used comes from the node’s vmem_info where the source has none', () => {
    const a = {
      ...held('web-1', 'n1', 0),
      vmem_info: { used: [{ used_mib: 300 }, { used_mib: 200 }] },
    };
    const verdict = workloadVerdict(
      [a],
      readings([[a, { meanPercent: 50, quietSeconds: 0, memoryUsedMiB: null }]]),
      settings,
    );
    expect(verdict.used.memoryMiB).toBe(500);
  });

  it('a workload holding no cards has no efficiency (no-cards) and is not an idle allocation', () => {
    const verdict = workloadVerdict([], readings([]), settings);
    expect(verdict).toMatchObject({
      efficiency: null,
      efficiencyUnknownReason: 'no-cards',
      idle: false,
    });
  });
});

describe('namespace verdict', () => {
  it('sums its workloads and agrees with them: efficiency over the known, idle counted', () => {
    const a = held('busy-1', 'n1', 0);
    const b = held('idle-1', 'n1', 1);
    const c = held('new-1', 'n1', 2);
    const read = readings([
      [a, series(80, 0)],
      [b, series(0, 3600)],
    ]);
    const rows = [[a], [b], [c]].map((instances) => workloadVerdict(instances, read, settings));
    const team = namespaceVerdict(rows, read);
    expect(team.workloads).toBe(3);
    expect(team.idleWorkloads).toBe(1);
    expect(team.unknownWorkloads).toBe(1);
    expect(team.allocated.computePercent).toBe(150);
    expect(team.efficiency).toBeCloseTo(0.4);
    expect(team.idleGpuHours).toBeCloseTo(0.5);
  });

  it('with no source its efficiency is null with that reason', () => {
    const a = held('busy-1', 'n1', 0);
    const read = readings([], [], 'unavailable');
    const team = namespaceVerdict([workloadVerdict([a], read, settings)], read);
    expect(team).toMatchObject({
      efficiency: null,
      efficiencyUnknownReason: 'no-source',
      idleGpuHours: null,
    });
  });
});

describe('--idle-after', () => {
  it('reads 30s, 2m, 30m and 1h, and refuses anything else', () => {
    expect(['30s', '2m', '30m', '1h'].map(parseUsageDuration)).toEqual([30, 120, 1800, 3600]);
    expect(['', '0m', '5', '1d', '-2m', '1.5m'].map(parseUsageDuration)).toEqual(
      Array(6).fill(undefined),
    );
  });
});
