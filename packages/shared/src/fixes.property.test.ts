/**
 * Every fix the rules suggest works: applied to the request, the rule it fixes no longer fires
 * there, and for a container's own GPU fields no rule of the fixed or changed fields fires either
 * (issue 27: 0.015 on 2 cards once suggested 0.01, which is 0.5 % per card).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRequest, evaluateRequest } from './check.js';
import { Big } from './decimal.js';
import { applyFix, fixesOf } from './fixes.js';
import type { GpuInventory } from './inventory.js';
import type { CardType } from './ledger/claim.js';
import {
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from './request.js';

const inventory: GpuInventory = {
  pools: [
    {
      model: 'NVIDIA-L20',
      resourceType: 'mgpu',
      policy: 'native-burst-share',
      cardsPerNode: 4,
      memoryMiBPerCard: 49152,
      nodes: 2,
    },
    {
      model: 'Tesla-V100',
      resourceType: 'mgpu',
      policy: 'fixed-share',
      cardsPerNode: 8,
      memoryMiBPerCard: 32768,
      nodes: 1,
    },
  ],
};

/** Decimal text near the rules' boundaries: integer part up to 20, up to 4 decimals. */
const decimalText = fc
  .tuple(fc.nat({ max: 20 }), fc.option(fc.stringMatching(/^\d{1,4}$/), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? String(whole) : `${whole}.${fraction}`));

const gpu = fc.record({
  type: fc.constantFrom<CardType>('mgpu', 'mgpu', 'mgpu', 'nvidia'),
  multiCard: fc.boolean(),
  cards: fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constantFrom('', 'x')),
  compute: fc.oneof(
    decimalText,
    fc.constantFrom('0.015', '0.005', '1.25', '3.2', '1.5', '2', '9', '', '1,5', '50%'),
  ),
  memoryGiB: fc.oneof(
    decimalText,
    fc.integer({ min: 1, max: 700 }).map(String),
    fc.constantFrom('', '5', '0.5', '160', '1.7'),
  ),
  model: fc.constantFrom('', 'NVIDIA-L20', 'Tesla-V100', 'NVIDIA-H100'),
});

const request: fc.Arbitrary<WorkloadRequestInput> = fc.record({
  name: fc.constantFrom('demo', 'Demo_1', 'train.v1'),
  replicas: fc.integer({ min: 0, max: 40 }),
  computePolicy: fc.constantFrom('native-burst-share', 'fixed-share'),
  containers: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom('worker', 'sidecar', 'Worker_2'),
      image: fc.constant('nginx:1.27'),
      gpu,
    }),
    { minLength: 1, maxLength: 2, selector: (container) => container.name },
  ),
});

function parse(input: WorkloadRequestInput): WorkloadRequest {
  const parsed = WorkloadRequestSchema.safeParse(input);
  if (!parsed.success) throw new Error(`the schema refuses a fix: ${parsed.error.message}`);
  return parsed.data;
}

const GPU_FIELD = /^containers\.\d+\.gpu\.(compute|memoryGiB|cards|multiCard)$/;

describe('every suggested fix, applied, passes the rule it fixes', () => {
  it('holds for random requests, with and without the cluster inventory', () => {
    fc.assert(
      fc.property(request, fc.boolean(), (input, withInventory) => {
        const original = parse(input);
        const cluster = withInventory ? inventory : undefined;
        for (const violation of evaluateRequest(original, cluster).violations) {
          for (const fix of fixesOf(violation)) {
            const fixed = parse(applyFix(input, fix));
            const after = evaluateRequest(fixed, cluster).violations;
            expect(
              after.filter((v) => v.rule === violation.rule && v.path === violation.path),
            ).toEqual([]);
            if (cluster !== undefined || !GPU_FIELD.test(violation.path)) continue;
            // Every rule of the fixed field, and of each field the fix changed, is satisfied.
            const touched = new Set([violation.path, ...fix.changes.map((c) => c.path)]);
            expect(after.filter((v) => touched.has(v.path))).toEqual([]);
          }
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('compute 0.015 on 2 cards suggests 0.02, not 0.01 (0.5 % per card)', () => {
    const input: WorkloadRequestInput = {
      name: 'demo',
      computePolicy: 'native-burst-share',
      containers: [
        {
          name: 'worker',
          image: 'nginx:1.27',
          gpu: { type: 'mgpu', multiCard: true, cards: 2, compute: '0.015', memoryGiB: '4' },
        },
      ],
    };
    const [error] = checkRequest(parse(input), { lang: 'zh-CN' }).errors;
    expect(error?.rule).toBe('compute-format');
    expect(error?.fixes).toEqual([
      { changes: [{ path: 'containers.0.gpu.compute', value: '0.02' }] },
    ]);
    expect(error?.fix).toContain('0.02');
    expect(error?.fix).not.toContain('0.01');
  });

  it('whole cards on one card count a fix by multi-card sharing as two field changes', () => {
    const input: WorkloadRequestInput = {
      name: 'demo',
      computePolicy: 'native-burst-share',
      containers: [
        { name: 'worker', image: 'nginx:1.27', gpu: { compute: '1.5', memoryGiB: '8' } },
      ],
    };
    const [error] = checkRequest(parse(input)).errors;
    expect(error?.rule).toBe('compute-whole-cards');
    const fixes = error?.fixes ?? [];
    expect(fixes.map((f) => f.changes.map((c) => c.value))).toEqual([['1'], ['2'], [true, 2]]);
    for (const fix of fixes) {
      const after = checkRequest(parse(applyFix(input, fix))).errors;
      expect(after.filter((e) => e.path === 'containers.0.gpu.compute')).toEqual([]);
    }
  });

  it('a memory of the right size over another card count is offered only when it splits into whole MiB', () => {
    let offered = 0;
    let withheld = 0;
    /** Memory in hundredths of a GiB: a quarter GiB is whole MiB, 0.01 GiB is not. */
    const hundredths = (min: number, max: number) =>
      fc.oneof(
        fc.integer({ min: Math.ceil(min / 25), max: Math.floor(max / 25) }).map((q) => q * 25),
        fc.integer({ min, max }),
      );
    // Too little per card (under 1 GiB: fewer cards) or too much (over 80 GiB: more cards).
    const memoryCase = fc.oneof(
      fc
        .integer({ min: 3, max: 8 })
        .chain((cards) =>
          fc.record({ cards: fc.constant(cards), hundredths: hundredths(200, cards * 100 - 1) }),
        ),
      fc.integer({ min: 1, max: 7 }).chain((cards) =>
        fc.record({
          cards: fc.constant(cards),
          hundredths: hundredths(cards * 8000 + 1, 64000),
        }),
      ),
    );
    fc.assert(
      fc.property(memoryCase, ({ cards, hundredths }) => {
        const memory = new Big(hundredths).div(100);
        const tooSmall = memory.lt(cards);
        const suggested = tooSmall
          ? memory.round(0, Big.roundDown).toNumber()
          : memory.div(80).round(0, Big.roundUp).toNumber();
        const totalMiB = memory.times(1024);
        const splits = totalMiB.mod(1).eq(0) && totalMiB.mod(suggested).eq(0);
        const input: WorkloadRequestInput = {
          name: 'demo',
          computePolicy: 'native-burst-share',
          containers: [
            {
              name: 'worker',
              image: 'nginx:1.27',
              // 10 % per card on the suggested count, so only the memory decides.
              gpu: {
                multiCard: true,
                cards,
                compute: new Big(suggested).div(10).toFixed(),
                memoryGiB: memory.toFixed(),
              },
            },
          ],
        };
        const error = checkRequest(parse(input)).errors.find(
          (e) => e.rule === 'per-card-memory-range',
        );
        expect(error, `${memory.toFixed()} GiB on ${cards} cards`).toBeDefined();
        const fixes = error?.fixes ?? [];
        const cardFix = { changes: [{ path: 'containers.0.gpu.cards', value: suggested }] };
        if (splits) {
          offered++;
          expect(fixes).toContainEqual(cardFix);
        } else {
          withheld++;
          expect(fixes.some((fix) => fix.changes.some((c) => c.path.endsWith('.cards')))).toBe(
            false,
          );
        }
        expect(fixes.length).toBeGreaterThan(0);
        for (const fix of fixes) {
          const after = checkRequest(parse(applyFix(input, fix))).errors;
          expect(after.filter((e) => e.path === 'containers.0.gpu.memoryGiB')).toEqual([]);
        }
      }),
      { numRuns: 400 },
    );
    // Both branches ran: a generator drifting to one side would leave the other unchecked.
    expect(offered).toBeGreaterThan(0);
    expect(withheld).toBeGreaterThan(0);
  });
});
