import { describe, expect, it } from 'vitest';
import { largestFit, largestFitOnCards, strandedCapacity } from './capacity.js';
import type { CardState, NodeState } from './placement/types.js';

const card = (
  index: number,
  usedCompute: number,
  usedMemoryMiB: number,
  instances = 1,
): CardState => ({
  index,
  usedCompute,
  usedMemoryMiB,
  instances: usedCompute === 0 && usedMemoryMiB === 0 ? 0 : instances,
  wholeNvidia: false,
});

const node = (name: string, cards: CardState[], memoryMiBPerCard = 46068): NodeState => ({
  name,
  labels: {},
  resourceType: 'mgpu',
  policy: 'native-burst-share',
  model: 'NVIDIA-L20',
  schedulable: true,
  memoryMiBPerCard,
  cards,
  pods: 0,
  maxPods: 110,
  group: 'NVIDIA-L20/native-burst-share',
  freeCompute: 0,
  freeMemoryMiB: 0,
  idleCards: 0,
  freeInstanceSlots: 0,
  version: 0,
});

describe('strandedCapacity', () => {
  it('counts compute on cards without a slice of memory left, and memory on cards without compute', () => {
    const stranded = strandedCapacity([
      node('a', [card(0, 40, 46068 - 512), card(1, 100, 10000), card(2, 50, 20000)]),
    ]);
    expect(stranded).toEqual({ computePercent: 60, memoryMiB: 46068 - 10000, cards: 2 });
  });

  it('counts everything free on a card whose 16 instance slots are taken', () => {
    expect(strandedCapacity([node('a', [card(0, 80, 16 * 1024, 16)])])).toEqual({
      computePercent: 20,
      memoryMiB: 46068 - 16 * 1024,
      cards: 1,
    });
  });
});

describe('largestFit', () => {
  it('finds the best equal split over up to 8 cards of one node', () => {
    // Free compute 60, 60, 30: 2 cards × 60 = 120 beats 3 × 30 = 90 and 1 × 60.
    const fit = largestFit([
      node('a', [card(0, 40, 4096), card(1, 40, 4096), card(2, 70, 4096), card(3, 100, 8192)]),
    ]);
    expect(fit.computePercent).toBe(120);
    expect(fit.cards).toBe(3);
    expect(fit.idleCards).toBe(0);
  });

  it('takes the best node of the pool, and idle cards whole', () => {
    const fit = largestFit([
      node('a', [card(0, 90, 4096), card(1, 0, 0)]),
      node('b', [card(0, 0, 0), card(1, 0, 0), card(2, 0, 0), card(3, 0, 0)]),
    ]);
    expect(fit).toEqual({ computePercent: 400, memoryMiB: 4 * 46068, idleCards: 4, cards: 4 });
  });
});

describe('largestFitOnCards', () => {
  it('words the largest fit per card on the request’s own card count, not over up to 8 cards', () => {
    // Free compute 60, 60, 30, 0: on 2 cards each gets at most 60 %; on 3, at most 30 %.
    const nodes = [
      node('a', [card(0, 40, 4096), card(1, 40, 4096), card(2, 70, 4096), card(3, 100, 8192)]),
    ];
    expect(largestFitOnCards(nodes, 2)).toEqual({
      cards: 2,
      computePercent: 60,
      memoryMiB: 46068 - 4096,
    });
    expect(largestFitOnCards(nodes, 3).computePercent).toBe(30);
    expect(largestFitOnCards(nodes, 5)).toEqual({ cards: 5, computePercent: 0, memoryMiB: 0 });
  });
});
