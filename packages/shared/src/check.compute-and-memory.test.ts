/** The check's GPU compute, card and memory rules, read from the spec (rows: `test-support/check-rows.ts`). */
import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { WorkloadRequestSchema } from './request.js';
import {
  CARDS,
  COMPUTE,
  MEMORY,
  multi,
  type Row,
  requestOf,
  runRow,
  single,
} from './test-support/check-rows.js';

describe('compute-format and compute-whole-cards (GPU 算力, multi-card sharing off)', () => {
  const rows: Row[] = [
    {
      label: '0.01, the smallest slice',
      gpu: single('0.01', '8'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 1, memoryMiB: 8192 },
    },
    {
      label: '0.009 is below 0.01',
      gpu: single('0.009', '8'),
      errors: [['compute-format', COMPUTE]],
    },
    { label: '0 is below 0.01', gpu: single('0', '8'), errors: [['compute-format', COMPUTE]] },
    { label: 'empty', gpu: single('', '8'), errors: [['compute-format', COMPUTE]] },
    {
      label: 'absent',
      gpu: { type: 'mgpu', memoryGiB: '8' },
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '"abc" is not a number',
      gpu: single('abc', '8'),
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '-0.5 is not allowed',
      gpu: single('-0.5', '8'),
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '0.29 (the binary-float trap: 0.29 × 100)',
      gpu: single('0.29', '8'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 29, memoryMiB: 8192 },
    },
    {
      label: '0.57 (another float trap)',
      gpu: single('0.57', '8'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 57, memoryMiB: 8192 },
    },
    {
      label: '0.999 has three decimals',
      gpu: single('0.999', '8'),
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '1, one whole card',
      gpu: single('1'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: '1.01: above 1 with two decimals',
      gpu: single('1.01'),
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '1.1 without multi-card sharing',
      gpu: single('1.1'),
      errors: [['compute-whole-cards', COMPUTE]],
    },
    {
      label: '1.25: above 1 with two decimals',
      gpu: single('1.25'),
      errors: [['compute-format', COMPUTE]],
    },
    {
      label: '1.5 without multi-card sharing',
      gpu: single('1.5'),
      errors: [['compute-whole-cards', COMPUTE]],
    },
    {
      label: '2 without multi-card sharing: two whole cards',
      gpu: single('2'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: '1.5 with multi-card sharing on 2 cards',
      gpu: multi('1.5', 2, '8'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 75, memoryMiB: 4096 },
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('cards-range (GPU 卡数, multi-card sharing on)', () => {
  const rows: Row[] = [
    { label: '0 cards', gpu: multi('0.8', 0, '8'), errors: [['cards-range', CARDS]] },
    {
      label: '1 card',
      gpu: multi('0.8', 1, '8'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 80, memoryMiB: 8192 },
    },
    {
      label: '8 cards',
      gpu: multi('0.8', 8, '8'),
      errors: [],
      cards: 8,
      perCard: { computePercent: 10, memoryMiB: 1024 },
    },
    { label: '9 cards', gpu: multi('0.8', 9, '8'), errors: [['cards-range', CARDS]] },
    { label: '2.5 cards', gpu: multi('0.8', 2.5, '8'), errors: [['cards-range', CARDS]] },
    { label: '-1 cards', gpu: multi('0.8', -1, '8'), errors: [['cards-range', CARDS]] },
    { label: 'no card count', gpu: multi('0.8', undefined, '8'), errors: [['cards-range', CARDS]] },
    {
      label: '"4" typed as text',
      gpu: multi('0.8', '4', '8'),
      errors: [],
      cards: 4,
      perCard: { computePercent: 20, memoryMiB: 2048 },
    },
    {
      label: 'a card count with multi-card sharing off is ignored (n = 1)',
      gpu: { ...single('0.5', '8'), cards: 9 },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('per-card-compute-precision and per-card-compute-max', () => {
  const rows: Row[] = [
    {
      label: '1 over 3 cards (33.33…%)',
      gpu: multi('1', 3, '3'),
      errors: [['per-card-compute-precision', COMPUTE]],
    },
    {
      label: '0.9 over 3 cards (30%)',
      gpu: multi('0.9', 3, '3'),
      errors: [],
      cards: 3,
      perCard: { computePercent: 30, memoryMiB: 1024 },
    },
    {
      label: '0.01 over 2 cards (0.5%)',
      gpu: multi('0.01', 2, '2'),
      errors: [['per-card-compute-precision', COMPUTE]],
    },
    {
      label: '0.02 over 2 cards (1%)',
      gpu: multi('0.02', 2, '2'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 1, memoryMiB: 1024 },
    },
    {
      label: '1.2 over 2 cards (60%)',
      gpu: multi('1.2', 2, '8'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 4096 },
    },
    {
      label: '3 over 2 cards (150%)',
      gpu: multi('3', 2),
      errors: [['per-card-compute-max', COMPUTE]],
    },
    {
      label: '2 over 2 cards (whole cards)',
      gpu: multi('2', 2),
      errors: [],
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: '8 over 8 cards (whole cards)',
      gpu: multi('8', 8),
      errors: [],
      cards: 8,
      perCard: { computePercent: 100, memoryMiB: null },
    },
    {
      label: '3.1 over 3 cards: both imprecise and above one card',
      gpu: multi('3.1', 3),
      errors: [
        ['per-card-compute-precision', COMPUTE],
        ['per-card-compute-max', COMPUTE],
      ],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('memory-required and memory-with-whole-card (GPU 显存)', () => {
  const rows: Row[] = [
    {
      label: 'a slice with empty memory',
      gpu: single('0.5', ''),
      errors: [['memory-required', MEMORY]],
    },
    {
      label: 'a slice with absent memory',
      gpu: single('0.5'),
      errors: [['memory-required', MEMORY]],
    },
    {
      label: 'a slice with blank memory',
      gpu: single('0.5', '   '),
      errors: [['memory-required', MEMORY]],
    },
    { label: 'a slice with 0 GiB', gpu: single('0.5', '0'), errors: [['memory-required', MEMORY]] },
    {
      label: 'a slice with -1 GiB',
      gpu: single('0.5', '-1'),
      errors: [['memory-required', MEMORY]],
    },
    {
      label: 'a slice with "abc" GiB',
      gpu: single('0.5', 'abc'),
      errors: [['memory-required', MEMORY]],
    },
    {
      label: '1.2 over 2 cards without memory',
      gpu: multi('1.2', 2, ''),
      errors: [['memory-required', MEMORY]],
    },
    {
      label: 'c=2, n=2 with memory',
      gpu: multi('2', 2, '8'),
      errors: [['memory-with-whole-card', MEMORY]],
    },
    {
      label: 'c=1 on a single card with memory',
      gpu: single('1', '8'),
      errors: [['memory-with-whole-card', MEMORY]],
    },
    {
      label: 'c=2 whole cards without multi-card sharing, with memory',
      gpu: single('2', '16'),
      errors: [['memory-with-whole-card', MEMORY]],
    },
    {
      label: 'c=2, n=2 with empty memory',
      gpu: multi('2', 2, ''),
      errors: [],
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('robustness: check never throws and answers at keystroke speed', () => {
  it('a 400-digit compute over 2 cards gives errors, not an exception', () => {
    const request = requestOf(multi(`1${'0'.repeat(400)}`, 2, '8'));
    expect(() => checkRequest(request)).not.toThrow();
  });

  it('a huge fractional memory is refused at once, however many digits it has', () => {
    // Typed values longer than a real number are not numbers (big.js work grows with the
    // digits), and the message quotes them cut short.
    const result = checkRequest(requestOf(single('0.5', `1${'0'.repeat(5000)}.0001`)));
    expect(result.errors.map((error) => error.rule)).toEqual(['memory-required']);
    expect(result.errors[0]?.message.length).toBeLessThan(200);
  });
});

describe('readings reviewed against spec §3 and §7', () => {
  const multi = (compute: string, cards: number, memoryGiB?: string) =>
    WorkloadRequestSchema.parse({
      name: 'demo',
      computePolicy: 'native-burst-share',
      containers: [
        {
          name: 'w',
          image: 'nginx',
          gpu: { type: 'mgpu', multiCard: true, compute, cards, memoryGiB },
        },
      ],
    });
  const rules = (request: Parameters<typeof checkRequest>[0]) =>
    checkRequest(request).errors.map((e) => e.rule);

  it('judges a compute above 8 cards by the per-card rules, not as a format error', () => {
    expect(rules(multi('10', 2))).toEqual(['per-card-compute-max']);
    expect(rules(multi('8.5', 8))).toEqual(['per-card-compute-precision', 'per-card-compute-max']);
  });

  it('takes 9 whole cards without multi-card sharing (only the cluster can say no)', () => {
    const request = WorkloadRequestSchema.parse({
      name: 'demo',
      containers: [{ name: 'w', image: 'nginx', gpu: { type: 'mgpu', compute: '9' } }],
    });
    expect(checkRequest(request).containers[0]).toMatchObject({ cards: 9, wholeCards: true });
  });

  it('reads JSON null as an empty field', () => {
    const request = WorkloadRequestSchema.parse({
      name: 'demo',
      computePolicy: null,
      containers: [
        {
          name: 'w',
          image: 'nginx',
          gpu: { type: 'mgpu', compute: '2', memoryGiB: null, model: null, cards: null },
        },
      ],
    });
    expect(checkRequest(request).valid).toBe(true);
  });
});
