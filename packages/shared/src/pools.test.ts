import { describe, expect, it } from 'vitest';
import { largestFit } from './capacity.js';
import type { CardState, NodeState } from './placement/types.js';
import { mergePoolSummaries, nodePoolSummary, poolSummaries } from './pools.js';

const card = (index: number, usedCompute: number, usedMemoryMiB: number): CardState => ({
  index,
  usedCompute,
  usedMemoryMiB,
  instances: usedCompute === 0 && usedMemoryMiB === 0 ? 0 : 1,
  wholeNvidia: false,
});

const node = (name: string, cards: CardState[], policy = 'native-burst-share'): NodeState => ({
  name,
  labels: {},
  resourceType: 'mgpu',
  policy,
  model: 'NVIDIA-L20',
  schedulable: true,
  memoryMiBPerCard: 46068,
  cards,
  pods: 0,
  maxPods: 110,
  group: `NVIDIA-L20/${policy}`,
  freeCompute: 0,
  freeMemoryMiB: 0,
  idleCards: 0,
  freeInstanceSlots: 0,
  version: 0,
});

describe('pool summaries', () => {
  const nodes = [
    node('a', [card(0, 60, 4096), card(1, 60, 4096)]),
    node('b', [card(0, 0, 0), card(1, 100, 46068)]),
    node('c', [card(0, 30, 8192)], 'fixed-share'),
  ];

  it('group nodes by model × policy with allocated / allocatable and partly used cards', () => {
    const [fixed, native] = poolSummaries(nodes);
    expect(fixed?.pool).toBe('NVIDIA-L20/fixed-share');
    expect(native).toMatchObject({
      pool: 'NVIDIA-L20/native-burst-share',
      nodes: 2,
      cards: 4,
      compute: { allocatable: 400, allocated: 220 },
      memoryMiB: { allocatable: 4 * 46068, allocated: 2 * 4096 + 46068 },
      cardsPartlyUsed: 2,
      cardsIdle: 1,
    });
  });

  it('take the largest fit of the best node, as one request lives on one node', () => {
    const native = poolSummaries(nodes)[1];
    expect(native?.largestFit).toEqual(largestFit(nodes.slice(0, 2)));
    // Node b's idle card (100 %) beats node a's 2 cards × 40 % free.
    expect(native?.largestFit.computePercent).toBe(100);
  });

  it('merged from per-node parts equal the summary of all nodes at once, parts untouched', () => {
    const parts = nodes.map((state) => nodePoolSummary(state)).filter((p) => p !== undefined);
    const before = JSON.stringify(parts);
    expect(mergePoolSummaries(parts)).toEqual(poolSummaries(nodes));
    expect(JSON.stringify(parts)).toBe(before);
  });
});
