import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { FIGURE_OF_RULE, perCardFigures } from './per-card-figures.js';
import type { GpuRequest } from './request.js';

const gpu = (fields: Partial<GpuRequest>): GpuRequest => ({
  type: 'mgpu',
  multiCard: true,
  ...fields,
});

describe('per-card figures while a rule refuses the fields', () => {
  it('1.5 GiB over 2 cards is 768 MiB per card, the figure per-card-memory-range is about', () => {
    const fields = gpu({ cards: 2, compute: '1.2', memoryGiB: '1.5' });
    expect(perCardFigures(fields)).toEqual({ cards: 2, computePercent: '60', memoryMiB: '768' });
    const errors = checkRequest({
      name: 'demo',
      namespace: 'default',
      replicas: 1,
      kind: 'Deployment',
      computePolicy: 'native-burst-share',
      containers: [{ name: 'main', image: 'nginx:1.27', gpu: fields }],
    }).errors;
    expect(errors.map((e) => FIGURE_OF_RULE[e.rule])).toEqual(['memory']);
  });

  it('an uneven split shows its rounded figure, marked as not exact', () => {
    expect(perCardFigures(gpu({ cards: 3, compute: '1', memoryGiB: '5' }))).toEqual({
      cards: 3,
      computePercent: '33.33…',
      memoryMiB: '1706.67…',
    });
  });

  it('whole cards without multi-card sharing count the cards from compute', () => {
    expect(perCardFigures(gpu({ multiCard: false, compute: '2', memoryGiB: '8' }))).toEqual({
      cards: 2,
      computePercent: '100',
      memoryMiB: '4096',
    });
  });

  it('no card count, no figures; unreadable compute leaves only memory', () => {
    expect(perCardFigures(gpu({ cards: 'x', compute: '1' }))).toBeUndefined();
    expect(perCardFigures(gpu({ cards: 2, compute: 'abc', memoryGiB: '8' }))).toEqual({
      cards: 2,
      memoryMiB: '4096',
    });
  });
});
