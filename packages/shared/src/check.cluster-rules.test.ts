/** The check's cluster-aware rules with a GPU inventory, read from the spec. */
import { describe, expect, it } from 'vitest';
import { checkRequest, evaluateRequest } from './check.js';
import type { GpuInventory, GpuPool } from './inventory.js';
import {
  CARDS,
  COMPUTE,
  describeErrors,
  expectErrors,
  type GpuInput,
  MEMORY,
  MODEL,
  multi,
  type Row,
  requestOf,
  runRow,
  single,
} from './test-support/check-rows.js';

describe('cluster-aware rules with a GPU inventory', () => {
  const L20Pool: GpuPool = {
    model: 'NVIDIA-L20',
    resourceType: 'mgpu',
    policy: 'native-burst-share',
    cardsPerNode: 4,
    memoryMiBPerCard: 49152,
    nodes: 2,
  };
  const inventory: GpuInventory = {
    pools: [
      L20Pool,
      {
        model: 'NVIDIA-L20',
        resourceType: 'mgpu',
        policy: 'fixed-share',
        cardsPerNode: 8,
        memoryMiBPerCard: 49152,
        nodes: 1,
      },
      {
        model: 'Tesla-V100',
        resourceType: 'mgpu',
        policy: 'fixed-share',
        cardsPerNode: 2,
        memoryMiBPerCard: 32768,
        nodes: 1,
      },
      {
        model: 'NVIDIA-A100-SXM4-80GB',
        resourceType: 'nvidia',
        policy: 'fixed-share',
        cardsPerNode: 4,
        memoryMiBPerCard: 81920,
        nodes: 1,
      },
    ],
  };
  const L20 = 'NVIDIA-L20';
  const V100 = 'Tesla-V100';
  const A100 = 'NVIDIA-A100-SXM4-80GB';
  const rows: Row[] = [
    {
      label: 'a model no node has',
      gpu: { ...single('0.5', '8'), model: 'NVIDIA-H100' },
      errors: [['model-unknown', MODEL]],
    },
    {
      label: 'L20, 48 GiB on one card (49152 MiB = the model)',
      gpu: { ...single('0.5', '48'), model: L20 },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 49152 },
    },
    {
      label: 'L20, 48.5 GiB on one card (49664 MiB > 49152)',
      gpu: { ...single('0.5', '48.5'), model: L20 },
      errors: [['per-card-memory-exceeds-model', MEMORY]],
    },
    {
      label: 'L20, 96 GiB over 2 cards (49152 each)',
      gpu: { ...multi('1.2', 2, '96'), model: L20 },
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 49152 },
    },
    {
      label: 'L20, 97 GiB over 2 cards (49664 each)',
      gpu: { ...multi('1.2', 2, '97'), model: L20 },
      errors: [['per-card-memory-exceeds-model', MEMORY]],
    },
    {
      label: 'any model, 64 GiB on one card: more than every mGPU model has',
      gpu: single('0.5', '64'),
      errors: [['per-card-memory-exceeds-model', MEMORY]],
    },
    {
      label: 'L20 native-burst-share, 4 cards (the largest native node)',
      gpu: { ...multi('2', 4, '8'), model: L20 },
      errors: [],
      cards: 4,
      perCard: { computePercent: 50, memoryMiB: 2048 },
    },
    {
      label: 'L20 native-burst-share, 5 cards (only fixed-share L20 nodes have 8)',
      gpu: { ...multi('2.5', 5, '10'), model: L20 },
      errors: [['cards-exceed-node', CARDS]],
    },
    {
      label: 'V100 slice under native-burst-share: no V100 node of that policy',
      gpu: { ...single('0.5', '8'), model: V100 },
      errors: [['cards-exceed-node', COMPUTE]],
    },
    {
      label: 'V100 slice under fixed-share',
      gpu: { ...single('0.5', '8'), model: V100 },
      request: { computePolicy: 'fixed-share' },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
    {
      label: 'whole cards skip the policy match: 8 whole L20 cards under native-burst-share',
      gpu: { ...single('8'), model: L20 },
      errors: [],
      cards: 8,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: 'whole cards skip the policy match: c=2, n=2 on V100 under native-burst-share',
      gpu: { ...multi('2', 2), model: V100 },
      errors: [],
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: 'whole cards: 3 V100 cards is more than any V100 node',
      gpu: { ...multi('3', 3), model: V100 },
      errors: [['cards-exceed-node', CARDS]],
    },
    {
      label: 'nvidia, 4 A100 cards',
      gpu: { type: 'nvidia', cards: 4, model: A100 },
      errors: [],
      cards: 4,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: 'nvidia, 5 A100 cards',
      gpu: { type: 'nvidia', cards: 5, model: A100 },
      errors: [['cards-exceed-node', CARDS]],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row, { inventory }));

  it('per-card-memory-exceeds-model suggests a memory that is accepted (model of 46068 MiB per card)', () => {
    // Cards rarely report round sizes; the suggested maximum must itself pass every rule.
    const oddCards: GpuInventory = {
      pools: [{ ...L20Pool, memoryMiBPerCard: 46068 }],
    };
    for (const [memoryGiB, cards] of [
      ['46', 1],
      ['90', 2],
    ] as const) {
      const gpu: GpuInput =
        cards === 1
          ? { ...single('0.5', memoryGiB), model: L20 }
          : { ...multi('1.2', cards, memoryGiB), model: L20 };
      const [violation] = evaluateRequest(requestOf(gpu), oddCards).violations;
      expect(violation?.rule).toBe('per-card-memory-exceeds-model');
      if (violation?.rule !== 'per-card-memory-exceeds-model') continue;
      const suggested = checkRequest(requestOf({ ...gpu, memoryGiB: violation.params.maxGiB }), {
        inventory: oddCards,
      });
      expect(describeErrors(suggested), `${violation.params.maxGiB} GiB over ${cards}`).toEqual([]);
    }
  });

  it('without an inventory the cluster-aware rules do not run', () => {
    const result = checkRequest(requestOf({ ...single('0.5', '64'), model: 'NVIDIA-H100' }));
    expectErrors(result, []);
  });
});
