import { describe, expect, it } from 'vitest';
import { allocationRecordId, type PodLike, podWholeCards } from '../allocations.js';
import {
  type CardReading,
  cardKey,
  type HeldInstance,
  instanceReadingKey,
  type UsageReadings,
  type UtilizationReading,
} from './readings.js';
import { namespaceVerdict, workloadVerdict } from './verdicts.js';

const settings = { idleThresholdPercent: 5, idleAfterSeconds: 1800 };

/** pretrain-0 of the demo topology: a bare pod holding two whole A100s. */
const pretrain: PodLike = {
  metadata: {
    name: 'pretrain-0',
    namespace: 'team-a',
    annotations: { 'vke.volcengine.com/gpu-index-container-trainer': '0,1' },
  },
  spec: {
    nodeName: 'a100-nvidia-0',
    containers: [{ name: 'trainer', resources: { limits: { 'nvidia.com/gpu': '2' } } }],
  },
  status: { phase: 'Running' },
};

const reading = (meanPercent: number, quietSeconds: number): UtilizationReading => ({
  meanPercent,
  quietSeconds,
  memoryUsedMiB: 1000,
});

const card = (node: string, index: number, figures: UtilizationReading): CardReading => ({
  node,
  card: index,
  uuid: null,
  model: null,
  memoryFreeMiB: null,
  ...figures,
});

function readings(
  instances: [string, UtilizationReading][],
  cards: CardReading[] = [],
  source: UsageReadings['source'] = 'embedded',
): UsageReadings {
  return {
    source,
    simulated: source === 'embedded',
    failed: false,
    instances: new Map(instances),
    cards: new Map(cards.map((reading) => [cardKey(reading.node, reading.card), reading])),
  };
}

describe('whole nvidia.com/gpu cards count as held cards', () => {
  it('a bare pod holds one card per index, all its compute, the memory its node reports', () => {
    const held = podWholeCards(pretrain, () => ({ memoryMiBPerCard: 81920, cards: [] }));
    expect(held.map(({ id, node, card, requested }) => ({ id, node, card, requested }))).toEqual(
      [0, 1].map((index) => ({
        id: allocationRecordId('team-a', 'pretrain-0', 'trainer', index),
        node: 'a100-nvidia-0',
        card: index,
        requested: { computePercent: 100, memoryMiB: 81920 },
      })),
    );
    for (const unknown of [
      undefined,
      { memoryMiBPerCard: 0, cards: [{ index: 0, memoryMiB: 0, instances: [] }] },
    ])
      expect(podWholeCards(pretrain, () => unknown)[0]?.requested.memoryMiB).toBeNull();
  });

  it('an mGPU pod or an unscheduled one holds no whole card', () => {
    const mgpu: PodLike = {
      ...pretrain,
      spec: {
        nodeName: 'a100-nvidia-0',
        containers: [
          { name: 'trainer', resources: { limits: { 'vke.volcengine.com/mgpu-core': '50' } } },
        ],
      },
    };
    expect(podWholeCards(mgpu, () => undefined)).toEqual([]);
    expect(podWholeCards({ ...pretrain, spec: { containers: [] } }, () => undefined)).toEqual([]);
  });

  it('its own instance series (the embedded exporter) give its efficiency and idleness', () => {
    const held = podWholeCards(pretrain, () => undefined);
    const read = readings(
      held.map((instance) => [instanceReadingKey(instance.node, instance.id), reading(2, 3600)]),
    );
    const verdict = workloadVerdict(held, read, settings);
    expect(verdict.allocated.computePercent).toBe(200);
    expect(verdict.efficiency).toBeCloseTo(0.02);
    expect(verdict.idle).toBe(true);
    expect(verdict.idleGpuHours).toBeCloseTo(2);
  });

  it('through dcgm a whole card’s own series is the workload’s (alone on the card)', () => {
    const held = podWholeCards(pretrain, () => undefined);
    const read = readings(
      [],
      [card('a100-nvidia-0', 0, reading(90, 0)), card('a100-nvidia-0', 1, reading(70, 0))],
      'prometheus',
    );
    const verdict = workloadVerdict(held, read, settings);
    expect(verdict.used.computePercent).toBeCloseTo(160);
    expect(verdict.efficiency).toBeCloseTo(0.8);
    expect(verdict.idle).toBe(false);
  });
});

describe('an instance alone on its card, read from the card only', () => {
  const alone = (computePercent: number): HeldInstance => ({
    id: `team-a/batch-0/main/0`,
    node: 'n1',
    card: 0,
    requested: { computePercent, memoryMiB: 4096 },
  });
  // The card quiet for an hour under 5 % of the card.
  const quietCard = readings([], [card('n1', 0, reading(4, 3600))], 'prometheus');

  it('a half share is not judged idle by the card’s quiet time (4 % of the card is 8 % of its own)', () => {
    const verdict = workloadVerdict([alone(50)], quietCard, settings);
    expect(verdict.efficiency).toBeCloseTo(0.08);
    expect(verdict.idle).toBeNull();
    expect(verdict.idleGpuHours).toBeNull();
  });

  it('a whole share takes the card’s quiet time: idle', () => {
    const verdict = workloadVerdict([alone(100)], quietCard, settings);
    expect(verdict.idle).toBe(true);
    expect(verdict.idleGpuHours).toBeCloseTo(1);
  });
});

describe('a namespace with a workload of unknown use', () => {
  it('compares used with the allocation of the known workloads, and says which that is', () => {
    const busy: HeldInstance = {
      id: 'team-a/busy-0/main/0',
      node: 'n1',
      card: 0,
      requested: { computePercent: 50, memoryMiB: 4096 },
    };
    const unread: HeldInstance = { ...busy, id: 'team-a/new-0/main/1', card: 1 };
    const read = readings([[instanceReadingKey(busy.node, busy.id), reading(80, 0)]]);
    const team = namespaceVerdict(
      [workloadVerdict([busy], read, settings), workloadVerdict([unread], read, settings)],
      read,
    );
    expect(team.allocated.computePercent).toBe(100);
    expect(team.knownAllocated.computePercent).toBe(50);
    expect(team.used.computePercent).toBeCloseTo(40);
    expect(team.efficiency).toBeCloseTo(0.8);
    expect(team.unknownWorkloads).toBe(1);
    // Memory: the unread workload hides the used sum, so the row says what is known and who is out.
    expect(team.used.memoryMiB).toBeNull();
    expect(team.knownMemory).toMatchObject({ allocatedMiB: 8192, wholeCardWorkloads: 0 });
    expect(team.knownMemory.usedUnknown).toBe(1);
  });

  it('counts a whole-card workload of unknown memory apart instead of hiding the team’s sum', () => {
    const sized: HeldInstance = {
      id: 'team-a/a-0/main/0',
      node: 'n1',
      card: 0,
      requested: { computePercent: 50, memoryMiB: 4096 },
    };
    const whole: HeldInstance = {
      id: 'team-a/pretrain-0/main/1',
      node: 'n1',
      card: 1,
      requested: { computePercent: 100, memoryMiB: null },
    };
    const read = readings([]);
    const team = namespaceVerdict(
      [workloadVerdict([sized], read, settings), workloadVerdict([whole], read, settings)],
      read,
    );
    expect(team.allocated.memoryMiB).toBeNull();
    expect(team.knownMemory).toMatchObject({ allocatedMiB: 4096, wholeCardWorkloads: 1 });
  });
});

describe('a pod name reused on another node within the window', () => {
  it('takes only its own node’s series, never the old pod’s figures', () => {
    const recreated: HeldInstance = {
      id: 'team-a/db-0/main/0',
      node: 'n2',
      card: 0,
      requested: { computePercent: 50, memoryMiB: 4096 },
    };
    // The old db-0 ran on n1 and was busy; the new one on n2 has no sample yet.
    const read = readings([[instanceReadingKey('n1', recreated.id), reading(90, 0)]]);
    const verdict = workloadVerdict([recreated], read, settings);
    expect(verdict.efficiency).toBeNull();
    expect(verdict.efficiencyUnknownReason).toBe('no-samples');
  });
});
