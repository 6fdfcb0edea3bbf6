import { describe, expect, it } from 'vitest';
import { nodeStateFromNode } from '../placement/node-state.js';
import { poolOf } from '../pools.js';
import { VKE } from '../vke.js';
import { poolComputeUsed } from './pool-usage.js';

/** An mGPU node of `cards` cards of `model`, as the API lists it. */
const node = (name: string, model: string, cards: number) =>
  nodeStateFromNode({
    metadata: { name, labels: { [VKE.scheduleLabel]: 'mgpu', [VKE.defaultModelLabel]: model } },
    status: {
      allocatable: {
        [VKE.coreResource]: String(cards * 100),
        [VKE.memoryResource]: String(cards * 16_384),
      },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  });

describe('a pool’s used compute', () => {
  const a1 = node('a1', 'L20', 2);
  const a2 = node('a2', 'L20', 1);
  const b1 = node('b1', 'A10', 2);
  const reading = (meanPercent: number | null) => ({ meanPercent });

  it('sums its cards’ utilisation in the unit of its allocation (100 a card)', () => {
    const used = poolComputeUsed(
      [a1, a2],
      new Map([
        ['a1/0', reading(40)],
        ['a1/1', reading(0)],
        ['a2/0', reading(100)],
      ]),
    );
    expect(used.get(poolOf(a1))).toBe(140);
  });

  it('is unknown, not a smaller sum, when a card of the pool has no reading', () => {
    const used = poolComputeUsed(
      [a1, a2, b1],
      new Map([
        ['a1/0', reading(40)],
        ['a1/1', reading(null)],
        ['a2/0', reading(100)],
        ['b1/0', reading(10)],
        ['b1/1', reading(20)],
      ]),
    );
    expect(used.has(poolOf(a1))).toBe(false);
    expect(used.get(poolOf(b1))).toBe(30);
  });
});
