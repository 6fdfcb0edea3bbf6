import { describe, expect, it } from 'vitest';
import { cardFigures, ownCardFigures } from './card-figures.js';
import {
  type CardReading,
  cardKey,
  type HeldInstance,
  instanceReadingKey,
  instancesPerCard,
} from './readings.js';

const held = (namespace: string, pod: string, node: string, card: number): HeldInstance => ({
  id: `${namespace}/${pod}/main/${card}`,
  node,
  card,
  requested: { computePercent: 50, memoryMiB: 4096 },
});

const cardReading = (node: string, card: number, meanPercent: number): CardReading => ({
  node,
  card,
  uuid: `GPU-${node}-${card}`,
  model: 'A100',
  meanPercent,
  quietSeconds: 0,
  memoryUsedMiB: 9000,
  memoryFreeMiB: 7000,
});

// team-a and team-b share n1/0; team-b alone holds n1/1; n2/0 is held by nobody.
const mine = held('team-a', 'web-0', 'n1', 0);
const theirsShared = held('team-b', 'train-0', 'n1', 0);
const theirsAlone = held('team-b', 'train-1', 'n1', 1);
const all = [mine, theirsShared, theirsAlone];
const readings = {
  source: 'embedded' as const,
  simulated: true,
  failed: false,
  instances: new Map([
    [instanceReadingKey('n1', mine.id), { meanPercent: 40, quietSeconds: 0, memoryUsedMiB: 1000 }],
    [
      instanceReadingKey('n1', theirsShared.id),
      { meanPercent: 90, quietSeconds: 0, memoryUsedMiB: 3000 },
    ],
    [
      instanceReadingKey('n1', theirsAlone.id),
      { meanPercent: 70, quietSeconds: 0, memoryUsedMiB: 2000 },
    ],
  ]),
  cards: new Map(
    [cardReading('n1', 0, 65), cardReading('n1', 1, 35), cardReading('n2', 0, 0)].map(
      (card) => [cardKey(card.node, card.card), card] as const,
    ),
  ),
};

describe('cards as an operator without list nodes sees them', () => {
  it('only the cards holding their own instances, their figures, the card’s own withheld', () => {
    const cards = ownCardFigures([mine], readings, instancesPerCard(all));
    expect(cards).toEqual([
      {
        node: 'n1',
        card: 0,
        uuid: null,
        model: null,
        used: { computePercent: null, memoryMiB: null },
        memoryFreeMiB: null,
        // Its own use (40 % of its 50 % share), nothing of team-b's instance on the same card.
        instances: [{ id: mine.id, used: { computePercent: 20, memoryMiB: 1000 } }],
        withheld: 'needs-list-nodes',
      },
    ]);
  });

  it('who may list nodes sees every card’s own figures, and no withheld reason', () => {
    const cards = cardFigures([mine], readings, instancesPerCard(all), all);
    expect(cards.map((card) => [card.node, card.card, card.used.computePercent])).toEqual([
      ['n1', 0, 65],
      ['n1', 1, 35],
      ['n2', 0, 0],
    ]);
    expect(cards.every((card) => card.withheld === null)).toBe(true);
  });
});
