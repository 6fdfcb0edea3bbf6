/**
 * Properties of the rule engine that no table can cover: no input the request schema accepts
 * makes the check throw; the per-card derivation multiplies back to the manifest's totals
 * exactly; the language changes the words only; every suggested value really is accepted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CheckResult, checkRequest, evaluateRequest } from './check.js';
import { Big } from './decimal.js';
import type { GpuInventory } from './inventory.js';
import {
  COMPUTE_POLICIES,
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from './request.js';
import { KUBERNETES_RULES, MGPU_RULES, type RuleId } from './rules.js';
import { seedRequest } from './seed-request.js';

type ContainerInput = WorkloadRequestInput['containers'][number];
type GpuInput = NonNullable<ContainerInput['gpu']>;

const CORE = 'vke.volcengine.com/mgpu-core';
const MEM = 'vke.volcengine.com/mgpu-memory';
const NVIDIA = 'nvidia.com/gpu';
const MULTI = 'vke.volcengine.com/multiple-mgpu-';

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
    {
      model: 'NVIDIA-A100-SXM4-80GB',
      resourceType: 'nvidia',
      policy: 'fixed-share',
      cardsPerNode: 8,
      memoryMiBPerCard: 81920,
      nodes: 1,
    },
  ],
};

/** Decimal text near the rules' boundaries: integer part up to 200, up to 4 decimals. */
const decimalText = fc
  .tuple(fc.nat({ max: 200 }), fc.option(fc.stringMatching(/^\d{1,4}$/), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? String(whole) : `${whole}.${fraction}`));

const typedValue = fc.oneof(
  fc.string(),
  decimalText,
  fc.constantFrom('', ' ', '0', '0.01', '0.29', '1', '1.2', '2', 'abc', '1,5', '50%', '-1', '.5'),
  fc.constantFrom('1e2', 'NaN', 'Infinity', '１', ' 1.2 ', '0x10', '1_000'),
);

/** Compute as typed (any text), or a JSON number the schema turns into text. */
const computeValue = fc.oneof(typedValue, fc.double({ noNaN: true, noDefaultInfinity: true }));
/**
 * Memory as typed. Kept to moderate magnitudes: a fractional memory of 1e8 GiB already takes
 * seconds and one of 1e20 GiB never returns (see check.compute-and-memory.test.ts,
 * "robustness"), and a synchronous loop cannot be timed out from inside the test.
 */
const memoryValue = fc.oneof(
  typedValue,
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
);

const cardsValue = fc.oneof(
  fc.integer({ min: -2, max: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string(),
  fc.constantFrom('2', ' 3 ', '2.0', '8'),
);

const dnsishName = fc.oneof(
  fc.string(),
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,60}[a-z0-9])?$/),
  fc.constantFrom('worker', 'demo', 'Worker', '', 'a.b', 'w'.repeat(50)),
);

const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

const gpuInput: fc.Arbitrary<GpuInput> = fc
  .record({
    type: optional(fc.constantFrom('mgpu', 'nvidia', 'none') as fc.Arbitrary<GpuInput['type']>),
    multiCard: optional(fc.boolean()),
    compute: optional(computeValue),
    memoryGiB: optional(memoryValue),
    cards: optional(cardsValue),
    model: optional(fc.constantFrom('', ' ', 'NVIDIA-L20', 'Tesla-V100', 'NVIDIA-H100')),
  })
  .map((gpu) => gpu);

const containerInput: fc.Arbitrary<ContainerInput> = fc.record({
  name: dnsishName,
  image: optional(fc.constantFrom('nginx:1.27', '', '  ', 'busybox')),
  gpu: optional(gpuInput),
});

const requestInput: fc.Arbitrary<WorkloadRequestInput> = fc.record({
  name: dnsishName,
  namespace: optional(dnsishName),
  replicas: optional(
    fc.oneof(fc.integer({ min: -3, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true })),
  ),
  computePolicy: optional(
    fc.constantFrom(...COMPUTE_POLICIES, '', 'best-effort', ' native-burst-share '),
  ),
  containers: fc.array(containerInput, { maxLength: 3 }),
});

/** Requests an operator would plausibly type: valid names, computes and memories near the rules. */
const plausibleGpu: fc.Arbitrary<GpuInput> = fc
  .record({
    type: fc.constantFrom('mgpu', 'mgpu', 'mgpu', 'nvidia') as fc.Arbitrary<GpuInput['type']>,
    multiCard: fc.boolean(),
    cards: fc.integer({ min: 1, max: 8 }),
    percent: fc.oneof(
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: 80 }).map((t) => t * 10),
    ),
    perCardMiB: fc.oneof(fc.integer({ min: 1024, max: 81920 }), fc.integer({ min: 1, max: 90000 })),
    memory: fc.constantFrom('per-card', 'per-card', 'none', 'typed'),
    typedMemory: decimalText,
    model: optional(fc.constantFrom('NVIDIA-L20', 'Tesla-V100')),
  })
  .map(({ type, multiCard, cards, percent, perCardMiB, memory, typedMemory, model }) => {
    const n = multiCard ? cards : 1;
    const memoryGiB =
      memory === 'per-card'
        ? new Big(perCardMiB * n).div(1024).toFixed()
        : memory === 'typed'
          ? typedMemory
          : undefined;
    return {
      type,
      multiCard,
      cards,
      compute: new Big(percent).div(100).toFixed(),
      ...(memoryGiB !== undefined ? { memoryGiB } : {}),
      ...(model !== undefined ? { model } : {}),
    };
  });
const plausibleRequest: fc.Arbitrary<WorkloadRequestInput> = fc.record({
  name: fc.constantFrom('demo', 'train.v1'),
  computePolicy: fc.constantFrom('native-burst-share', 'native-burst-share', 'fixed-share'),
  containers: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom('worker', 'sidecar', 'pod-demo'),
      image: fc.constant('nginx:1.27'),
      gpu: plausibleGpu,
    }),
    { minLength: 1, maxLength: 2, selector: (container) => container.name },
  ),
});

/** Parsed requests, half of them checked with the cluster-aware rules too. */
const checkedRequest = fc.record({
  input: fc.oneof(requestInput, plausibleRequest),
  withInventory: fc.boolean(),
});

const KNOWN_RULES = new Set<RuleId>([...MGPU_RULES, ...KUBERNETES_RULES]);
const PATH =
  /^(name|namespace|replicas|computePolicy|containers|containers\.\d+\.(name|image|gpu\.(type|multiCard|compute|memoryGiB|cards|model)))$/;

function parse(input: WorkloadRequestInput): WorkloadRequest {
  const parsed = WorkloadRequestSchema.safeParse(input);
  expect(parsed.success).toBe(true);
  if (!parsed.success) throw new Error('the generator made a request the schema refuses');
  return parsed.data;
}

/** The check result with the words taken out. */
const bare = (result: CheckResult) => ({
  ...result,
  errors: result.errors.map(({ rule, path }) => ({ rule, path })),
});

/** Per-card × cards = the container's totals in the manifest, exactly (as integers). */
function expectTotalsMatchManifest(request: WorkloadRequest, result: CheckResult): void {
  const containers = result.manifest?.spec.template.spec.containers ?? [];
  const annotations = result.manifest?.spec.template.metadata.annotations ?? {};
  for (const share of result.containers) {
    const name = request.containers[share.index]?.name ?? '';
    const written = containers.find((c) => c.name === name);
    const limits = written?.resources?.limits ?? {};
    expect(written?.resources?.requests).toEqual(limits);
    expect(Number.isInteger(share.cards)).toBe(true);
    expect(Number.isInteger(share.perCard.computePercent)).toBe(true);
    if (share.type === 'nvidia') {
      expect(limits).toEqual({ [NVIDIA]: String(share.cards) });
      continue;
    }
    const core = limits[CORE] ?? '';
    expect(core).toMatch(/^\d+$/);
    expect(BigInt(core)).toBe(BigInt(share.perCard.computePercent) * BigInt(share.cards));
    if (share.perCard.memoryMiB === null) {
      expect(share.perCard.computePercent).toBe(100);
      expect(limits[MEM]).toBeUndefined();
    } else {
      const memory = limits[MEM] ?? '';
      expect(memory).toMatch(/^\d+$/);
      expect(Number.isInteger(share.perCard.memoryMiB)).toBe(true);
      expect(BigInt(memory)).toBe(BigInt(share.perCard.memoryMiB) * BigInt(share.cards));
      expect(share.perCard.memoryMiB).toBeGreaterThanOrEqual(1024);
      expect(share.perCard.memoryMiB).toBeLessThanOrEqual(81920);
    }
    expect(share.perCard.computePercent).toBeGreaterThanOrEqual(1);
    expect(share.perCard.computePercent).toBeLessThanOrEqual(100);
    expect(annotations[`${MULTI}${name}`]).toBe(share.multiCard ? String(share.cards) : undefined);
  }
}

describe('check on anything the request schema accepts', () => {
  it('never throws, and its result keeps the §7 shape', () => {
    fc.assert(
      fc.property(checkedRequest, ({ input, withInventory }) => {
        const request = parse(input);
        for (const lang of ['zh-CN', 'en'] as const) {
          const result = checkRequest(request, { lang, ...(withInventory ? { inventory } : {}) });
          expect(result.valid).toBe(result.errors.length === 0);
          expect(result.manifest !== undefined).toBe(result.valid);
          for (const error of result.errors) {
            expect(KNOWN_RULES.has(error.rule)).toBe(true);
            expect(error.path).toMatch(PATH);
            expect(error.message.trim()).not.toBe('');
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on a compute of hundreds of digits (beyond binary floating point)', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9]\d{308,400}(\.\d)?$/),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        (compute, cards, multiCard) => {
          const request = parse({
            name: 'demo',
            computePolicy: 'native-burst-share',
            containers: [
              { name: 'worker', image: 'nginx:1.27', gpu: { multiCard, cards, compute } },
            ],
          });
          const result = checkRequest(request);
          expect(result.valid).toBe(false);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('gives the same result in zh-CN and en except for the words', () => {
    fc.assert(
      fc.property(checkedRequest, ({ input, withInventory }) => {
        const request = parse(input);
        const options = withInventory ? { inventory } : {};
        const zh = checkRequest(request, { lang: 'zh-CN', ...options });
        const en = checkRequest(request, { lang: 'en', ...options });
        expect(bare(zh)).toEqual(bare(en));
      }),
      { numRuns: 300 },
    );
  });

  it('for every valid request, per-card values × cards are the manifest totals exactly', () => {
    fc.assert(
      fc.property(checkedRequest, ({ input, withInventory }) => {
        const request = parse(input);
        const result = checkRequest(request, withInventory ? { inventory } : {});
        if (result.valid) expectTotalsMatchManifest(request, result);
      }),
      // About one generated request in twenty is valid; the constructive properties below cover more.
      { numRuns: 1500 },
    );
  });
});

describe('every request the rules of §3 allow is accepted and derived exactly', () => {
  /** Compute as an operator would type it: the shortest decimal text of percent / 100. */
  const trimZeros = (text: string) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text);
  const computeText = (percent: number) => trimZeros(new Big(percent).div(100).toFixed());
  const gibText = (mib: number) => trimZeros(new Big(mib).div(1024).toFixed());

  it('multi-card: per-card p % and m MiB over n cards', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1024, max: 81920 }),
        (cards, perCardPercent, perCardMiB) => {
          const total = perCardPercent * cards;
          // compute-format: up to 1 by 0.01, above 1 by 0.1.
          fc.pre(total <= 100 || total % 10 === 0);
          const whole = perCardPercent === 100;
          const request = parse(
            seedRequest(
              'demo',
              {},
              {
                type: 'mgpu',
                multiCard: true,
                cards,
                compute: computeText(total),
                ...(whole ? {} : { memoryGiB: gibText(perCardMiB * cards) }),
              },
            ),
          );
          const result = checkRequest(request);
          expect(result.errors).toEqual([]);
          expect(result.containers[0]).toMatchObject({
            cards,
            perCard: { computePercent: perCardPercent, memoryMiB: whole ? null : perCardMiB },
          });
          const limits = result.manifest?.spec.template.spec.containers[0]?.resources?.limits;
          expect(limits).toEqual({
            [CORE]: String(total),
            ...(whole ? {} : { [MEM]: String(perCardMiB * cards) }),
          });
          expect(result.manifest?.spec.template.metadata.annotations?.[`${MULTI}worker`]).toBe(
            String(cards),
          );
          expectTotalsMatchManifest(request, result);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('single card: a slice of p % with m MiB, or k whole cards', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 1, max: 99 }).map((percent) => ({ percent, cards: 1 })),
          fc.integer({ min: 1, max: 8 }).map((cards) => ({ percent: 100 * cards, cards })),
        ),
        fc.integer({ min: 1024, max: 81920 }),
        ({ percent, cards }, perCardMiB) => {
          const slice = percent < 100;
          const request = parse({
            name: 'demo',
            containers: [
              {
                name: 'worker',
                image: 'nginx:1.27',
                gpu: {
                  compute: computeText(percent),
                  ...(slice ? { memoryGiB: gibText(perCardMiB) } : {}),
                },
              },
            ],
          });
          const result = checkRequest(request);
          expect(result.errors).toEqual([]);
          expect(result.containers[0]).toMatchObject({
            cards,
            perCard: {
              computePercent: slice ? percent : 100,
              memoryMiB: slice ? perCardMiB : null,
            },
          });
          expectTotalsMatchManifest(request, result);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('every value a fix suggests is accepted', () => {
  const requestWith = (gpu: GpuInput) =>
    parse({
      name: 'demo',
      computePolicy: 'native-burst-share',
      containers: [{ name: 'worker', image: 'nginx:1.27', gpu }],
    });
  const gpuErrorsAt = (gpu: GpuInput, field: string) =>
    evaluateRequest(requestWith(gpu)).violations.filter(
      (v) => v.path === `containers.0.gpu.${field}`,
    );

  it('per-card-compute-precision: the suggested computes split evenly over the same cards', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 800 }),
        fc.integer({ min: 2, max: 8 }),
        (percent, cards) => {
          fc.pre(percent <= 100 || percent % 10 === 0);
          const gpu: GpuInput = {
            multiCard: true,
            cards,
            compute: new Big(percent).div(100).toFixed(),
            memoryGiB: String(cards * 2),
          };
          for (const violation of gpuErrorsAt(gpu, 'compute')) {
            if (violation.rule !== 'per-card-compute-precision') continue;
            for (const compute of violation.params.computeSuggestions) {
              expect(gpuErrorsAt({ ...gpu, compute }, 'compute')).toEqual([]);
            }
            for (const other of violation.params.cardSuggestions) {
              expect(
                gpuErrorsAt({ ...gpu, cards: other, memoryGiB: String(other * 2) }, 'compute'),
              ).toEqual([]);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('per-card-memory-integer: the suggested GiB amounts give whole MiB per card in range', () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 1, max: 8 }), (memoryGiB, cards) => {
        const gpu: GpuInput = { multiCard: true, cards, compute: '0.08', memoryGiB };
        const violations = gpuErrorsAt(gpu, 'memoryGiB');
        for (const violation of violations) {
          if (violation.rule !== 'per-card-memory-integer') continue;
          expect(violation.params.suggestions.length).toBeGreaterThan(0);
          for (const suggestion of violation.params.suggestions) {
            expect(gpuErrorsAt({ ...gpu, memoryGiB: suggestion }, 'memoryGiB')).toEqual([]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('compute-format: the suggested computes have the right number of decimals', () => {
    fc.assert(
      fc.property(decimalText, (compute) => {
        const gpu: GpuInput = { multiCard: true, cards: 1, compute, memoryGiB: '8' };
        for (const violation of gpuErrorsAt(gpu, 'compute')) {
          if (violation.rule !== 'compute-format') continue;
          for (const suggestion of violation.params.suggestions) {
            const again = gpuErrorsAt({ ...gpu, compute: suggestion }, 'compute');
            expect(again.filter((v) => v.rule === 'compute-format')).toEqual([]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
