import { describe, expect, it } from 'vitest';
import { nodeStateFromNode } from '../placement/node-state.js';
import type { CardState } from '../placement/types.js';
import { MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import {
  applyAllocation,
  bookOnCard,
  claimsPerIdleCard,
  computeAfterBooking,
  emptyCard,
  fitsOnCard,
  hasInstanceSlot,
  isIdleCard,
  memoryAfterBooking,
  releaseAllocation,
} from './book.js';
import { type GpuClaim, WHOLE_CARD_CLAIM } from './claim.js';

const CARD_MIB = 46068;
const share = (computePercent: number, memoryMiB: number | null = 1024) => ({
  type: 'mgpu' as const,
  perCard: { computePercent, memoryMiB },
  wholeCards: false,
});
const whole = { ...WHOLE_CARD_CLAIM, wholeCards: true };

const booked = (...claims: GpuClaim[]): CardState => {
  const card = emptyCard(0);
  for (const claim of claims) bookOnCard(card, claim, CARD_MIB);
  return card;
};

describe('the ledger books a card', () => {
  it('takes at most 16 mGPU instances on one card, however small their shares', () => {
    const card = booked(...Array.from({ length: MAX_INSTANCES_PER_CARD - 1 }, () => share(1)));
    expect(fitsOnCard(card, share(1), CARD_MIB)).toBe(true);
    bookOnCard(card, share(1), CARD_MIB);
    expect(card.instances).toBe(16);
    expect(hasInstanceSlot(card)).toBe(false);
    expect(fitsOnCard(card, share(1), CARD_MIB)).toBe(false);
  });

  it('refuses to over-commit compute or memory, and fills a card exactly with thirds', () => {
    const card = booked(share(60, 40_000));
    expect(fitsOnCard(card, share(50, 1024), CARD_MIB)).toBe(false);
    expect(fitsOnCard(card, share(40, 8192), CARD_MIB)).toBe(false);
    expect(fitsOnCard(card, share(40, 6068), CARD_MIB)).toBe(true);
    const thirds = booked(share(100 / 3), share(100 / 3));
    expect(fitsOnCard(thirds, share(100 / 3), CARD_MIB)).toBe(true);
  });

  it('gives whole cards only idle cards, and lets no mGPU instance join a whole card', () => {
    expect(fitsOnCard(emptyCard(0), whole, CARD_MIB)).toBe(true);
    expect(fitsOnCard(booked(share(10)), whole, CARD_MIB)).toBe(false);
    const nvidia = booked(WHOLE_CARD_CLAIM);
    expect(nvidia).toEqual({
      index: 0,
      usedCompute: 100,
      usedMemoryMiB: CARD_MIB,
      instances: 0,
      wholeNvidia: true,
    });
    expect(isIdleCard(nvidia)).toBe(false);
    expect(fitsOnCard(nvidia, share(1), CARD_MIB)).toBe(false);
    bookOnCard(nvidia, WHOLE_CARD_CLAIM, CARD_MIB, -1);
    expect(nvidia).toEqual(emptyCard(0));
  });

  it('books a 100 % mGPU share with all the card memory, and never frees below zero', () => {
    const card = booked(share(100, null));
    expect(card).toMatchObject({ usedCompute: 100, usedMemoryMiB: CARD_MIB, instances: 1 });
    bookOnCard(card, share(100, null), CARD_MIB, -1);
    bookOnCard(card, share(100, null), CARD_MIB, -1);
    expect(card).toEqual(emptyCard(0));
  });

  it('tells the usage a booking would leave, and how many shares an idle card holds', () => {
    for (const claim of [share(30, 20_000), share(100 / 3), share(1), share(100, null), whole]) {
      const card = booked(share(5, 512));
      const compute = computeAfterBooking(card, claim);
      const memory = memoryAfterBooking(card, claim, CARD_MIB);
      bookOnCard(card, claim, CARD_MIB);
      expect([card.usedCompute, card.usedMemoryMiB]).toEqual([compute, memory]);

      const idle = emptyCard(0);
      let held = 0;
      while (fitsOnCard(idle, claim, CARD_MIB)) {
        bookOnCard(idle, claim, CARD_MIB);
        held += 1;
      }
      expect(claimsPerIdleCard(claim, CARD_MIB)).toBe(held);
    }
  });

  it('books a pod on its node and gives it back to the same free totals', () => {
    const state = nodeStateFromNode({
      metadata: { name: 'l20-1', labels: { [VKE.scheduleLabel]: 'mgpu' } },
      status: {
        allocatable: { [VKE.coreResource]: '400', [VKE.memoryResource]: String(4 * CARD_MIB) },
      },
    });
    const before = { ...state, cards: state.cards.map((card) => ({ ...card })), version: 0 };
    const pod = {
      key: 'default/demo',
      node: 'l20-1',
      containers: [{ name: 'worker', cards: [1, 3], ...share(60, 4096) }],
    };
    applyAllocation(state, pod);
    expect(state.cards[1]).toMatchObject({ usedCompute: 60, usedMemoryMiB: 4096, instances: 1 });
    expect(state).toMatchObject({ freeCompute: 280, freeInstanceSlots: 62, idleCards: 2, pods: 1 });
    releaseAllocation(state, pod);
    expect({ ...state, version: 0 }).toEqual(before);
  });
});
