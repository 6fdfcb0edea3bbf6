/**
 * An independent, spec-driven reading of the rule engine (spec §2, §3, §4, §7; the seed
 * `mgpu-multi-card-sharing.zh.txt`; issue 3). Each table row is one input an operator could
 * type, the exact rule ids and paths the spec makes of it, and the per-card shares when valid.
 */
import { describe, expect, it } from 'vitest';
import { type CheckOptions, type CheckResult, checkRequest, evaluateRequest } from './check.js';
import type { GpuInventory, GpuPool } from './inventory.js';
import type { DeploymentManifest } from './manifest.js';
import {
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from './request.js';
import { KUBERNETES_RULES, type Lang, MGPU_RULES, type RuleId } from './rules.js';
import { SEED_REQUEST } from './seed-request.js';

type ContainerInput = WorkloadRequestInput['containers'][number];
type GpuInput = NonNullable<ContainerInput['gpu']>;
type Expected = readonly (readonly [RuleId, string])[];
interface Share {
  computePercent: number;
  memoryMiB: number | null;
}

const COMPUTE = 'containers.0.gpu.compute';
const MEMORY = 'containers.0.gpu.memoryGiB';
const CARDS = 'containers.0.gpu.cards';
const MODEL = 'containers.0.gpu.model';
const CORE = 'vke.volcengine.com/mgpu-core';
const MEM = 'vke.volcengine.com/mgpu-memory';
const NVIDIA = 'nvidia.com/gpu';
const MODEL_LABEL = 'machine.cluster.vke.volcengine.com/gpu-name';
const POLICY_ANNOTATION = 'vke.volcengine.com/mgpu-compute-policy';

/** A one-container request in the §7 shape; multi-card cases need native-burst-share, so it is the default. */
function requestOf(
  gpu: GpuInput | undefined,
  overrides: Partial<WorkloadRequestInput> = {},
): WorkloadRequest {
  return WorkloadRequestSchema.parse({
    name: 'demo',
    namespace: 'default',
    replicas: 1,
    computePolicy: 'native-burst-share',
    containers: [{ name: 'worker', image: 'nginx:1.27', ...(gpu ? { gpu } : {}) }],
    ...overrides,
  });
}

/** Multi-card sharing off (n = 1): a slice with memory, or whole cards without. */
const single = (compute: string, memoryGiB?: string): GpuInput => ({
  type: 'mgpu',
  multiCard: false,
  compute,
  ...(memoryGiB !== undefined ? { memoryGiB } : {}),
});

/** Multi-card sharing on with `cards` typed into GPU 卡数. */
const multi = (
  compute: string,
  cards: number | string | undefined,
  memoryGiB?: string,
): GpuInput => ({
  type: 'mgpu',
  multiCard: true,
  compute,
  ...(cards !== undefined ? { cards } : {}),
  ...(memoryGiB !== undefined ? { memoryGiB } : {}),
});

const describeErrors = (result: CheckResult) =>
  result.errors.map((error) => `${error.rule} @ ${error.path}`).sort();

/** Exactly these rules at these paths (order free); valid ⇔ none, and then a manifest. */
function expectErrors(result: CheckResult, expected: Expected): void {
  expect(describeErrors(result)).toEqual(
    expected.map(([rule, path]) => `${rule} @ ${path}`).sort(),
  );
  expect(result.valid).toBe(expected.length === 0);
  if (expected.length === 0) expect(result.manifest).toBeDefined();
  else expect(result.manifest).toBeUndefined();
}

function limitsOf(result: CheckResult, index = 0): Record<string, string> | undefined {
  return result.manifest?.spec.template.spec.containers[index]?.resources?.limits;
}

interface Row {
  label: string;
  gpu: GpuInput;
  request?: Partial<WorkloadRequestInput>;
  errors: Expected;
  /** For valid rows: the container's card count and per-card shares (spec §7 `containers`). */
  cards?: number;
  perCard?: Share;
}

function runRow({ gpu, request, errors, cards, perCard }: Row, options: CheckOptions = {}): void {
  const result = checkRequest(requestOf(gpu, request), options);
  expectErrors(result, errors);
  if (perCard !== undefined) {
    expect(result.containers).toHaveLength(1);
    expect(result.containers[0]).toMatchObject({ name: 'worker', cards, perCard });
  }
}

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

describe('per-card-memory-integer and per-card-memory-range', () => {
  const rows: Row[] = [
    {
      label: '12 GiB over 3 cards (4096 MiB)',
      gpu: multi('0.9', 3, '12'),
      errors: [],
      cards: 3,
      perCard: { computePercent: 30, memoryMiB: 4096 },
    },
    {
      label: '5 GiB over 3 cards (1706.67 MiB)',
      gpu: multi('0.9', 3, '5'),
      errors: [['per-card-memory-integer', MEMORY]],
    },
    {
      label: '1.5 GiB on one card (1536 MiB)',
      gpu: single('0.5', '1.5'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1536 },
    },
    {
      label: '1.0009765625 GiB on one card (1025 MiB)',
      gpu: single('0.5', '1.0009765625'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1025 },
    },
    {
      label: '1.0001 GiB on one card (1024.1024 MiB)',
      gpu: single('0.5', '1.0001'),
      errors: [['per-card-memory-integer', MEMORY]],
    },
    {
      label: '1 GiB on one card (1024 MiB, the lower bound)',
      gpu: single('0.5', '1'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1024 },
    },
    {
      label: '0.9990234375 GiB on one card (1023 MiB)',
      gpu: single('0.5', '0.9990234375'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '0.99 GiB on one card (1013.76 MiB: fractional and too small)',
      gpu: single('0.5', '0.99'),
      errors: [
        ['per-card-memory-integer', MEMORY],
        ['per-card-memory-range', MEMORY],
      ],
    },
    {
      label: '80 GiB on one card (81920 MiB, the upper bound)',
      gpu: single('0.5', '80'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 81920 },
    },
    {
      label: '80.0009765625 GiB on one card (81921 MiB)',
      gpu: single('0.5', '80.0009765625'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '80.5 GiB on one card (82432 MiB)',
      gpu: single('0.5', '80.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '160 GiB over 2 cards (81920 MiB each)',
      gpu: multi('1.2', 2, '160'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 81920 },
    },
    {
      label: '160.5 GiB over 2 cards (82176 MiB each)',
      gpu: multi('1.2', 2, '160.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '2 GiB over 2 cards (1024 MiB each)',
      gpu: multi('1.2', 2, '2'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 1024 },
    },
    {
      label: '1.5 GiB over 2 cards (768 MiB each)',
      gpu: multi('1.2', 2, '1.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('multi-card-policy (算力分配策略) and annotation-key-too-long', () => {
  const name49 = `w${'x'.repeat(47)}1`;
  const name50 = `w${'x'.repeat(48)}1`;
  const name63 = `w${'x'.repeat(61)}1`;
  const name43 = `w${'x'.repeat(41)}1`;
  const name44 = `w${'x'.repeat(42)}1`;
  const rows: Row[] = [
    {
      label: 'multi-card with native-burst-share',
      gpu: multi('1.2', 2, '8'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 4096 },
    },
    {
      label: 'multi-card without a policy',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: undefined },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'multi-card with fixed-share',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: 'fixed-share' },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'multi-card with guaranteed-burst-share',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: 'guaranteed-burst-share' },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'single card with fixed-share',
      gpu: single('0.5', '8'),
      request: { computePolicy: 'fixed-share' },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
    {
      label: 'single card without a policy',
      gpu: single('0.5', '8'),
      request: { computePolicy: undefined },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
    {
      label: 'an unknown policy',
      gpu: single('0.5', '8'),
      request: { computePolicy: 'best-effort' },
      errors: [['compute-policy-unknown', 'computePolicy']],
    },
    {
      // Issue 14: gpu-index-container-<name> (written by the scheduler) is the tighter key.
      label: 'multi-card, container name of 49 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name49, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'multi-card, container name of 43 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name43, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [],
    },
    {
      label: 'single card, container name of 43 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name43, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [],
    },
    {
      label: 'single card, container name of 44 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name44, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'nvidia, container name of 44 characters',
      gpu: { type: 'nvidia', cards: 1 },
      request: {
        containers: [{ name: name44, image: 'nginx:1.27', gpu: { type: 'nvidia', cards: 1 } }],
      },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'no GPU, container name of 63 characters',
      gpu: { type: 'none' },
      request: { containers: [{ name: name63, image: 'nginx:1.27' }] },
      errors: [],
    },
    {
      label: 'multi-card, container name of 50 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name50, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      // Issue 14: the scheduler's gpu-index-container-<name> key is written for one card too.
      label: 'single card, container name of 50 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name50, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      // Issue 14: the scheduler's gpu-index-container-<name> key is written for one card too.
      label: 'single card, container name of 63 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name63, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));

  // Issue 14: the longest name accepted is now 43, which makes the scheduler's key 63 long.
  it('the 43-character name gives a 63-character gpu-index annotation key name', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [{ name: name43, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    );
    const keys = Object.keys(result.manifest?.spec.template.metadata.annotations ?? {});
    const key = keys.find((k) => k.startsWith('vke.volcengine.com/multiple-mgpu-'));
    expect(result.valid).toBe(true);
    expect(`gpu-index-container-${name43}`).toHaveLength(63);
    expect(key?.split('/')[1]?.length).toBeLessThanOrEqual(63);
  });
});

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

describe('ordinary Kubernetes rules', () => {
  const gpu = single('0.5', '8');
  const container = (name: string, image = 'nginx:1.27'): ContainerInput => ({ name, image, gpu });
  const rows: Row[] = [
    { label: 'name "demo.v1" (a subdomain)', gpu, request: { name: 'demo.v1' }, errors: [] },
    // Issue 14: a valid subdomain longer than 63 is refused by `name-too-long` (label value).
    {
      label: 'name of 253 characters',
      gpu,
      request: { name: 'a'.repeat(253) },
      errors: [['name-too-long', 'name']],
    },
    {
      label: 'name of 254 characters',
      gpu,
      request: { name: 'a'.repeat(254) },
      errors: [['name-format', 'name']],
    },
    { label: 'name "Demo"', gpu, request: { name: 'Demo' }, errors: [['name-format', 'name']] },
    { label: 'empty name', gpu, request: { name: '' }, errors: [['name-format', 'name']] },
    {
      label: 'name "demo_app"',
      gpu,
      request: { name: 'demo_app' },
      errors: [['name-format', 'name']],
    },
    { label: 'name "-demo"', gpu, request: { name: '-demo' }, errors: [['name-format', 'name']] },
    { label: 'name "demo."', gpu, request: { name: 'demo.' }, errors: [['name-format', 'name']] },
    { label: 'namespace "team-a"', gpu, request: { namespace: 'team-a' }, errors: [] },
    {
      label: 'namespace of 63 characters',
      gpu,
      request: { namespace: 'a'.repeat(63) },
      errors: [],
    },
    {
      label: 'namespace of 64 characters',
      gpu,
      request: { namespace: 'a'.repeat(64) },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'namespace "team.a" (a label has no dots)',
      gpu,
      request: { namespace: 'team.a' },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'namespace "Team"',
      gpu,
      request: { namespace: 'Team' },
      errors: [['namespace-format', 'namespace']],
    },
    {
      label: 'container name "worker-1"',
      gpu,
      request: { containers: [container('worker-1')] },
      errors: [],
    },
    {
      label: 'container name "Worker"',
      gpu,
      request: { containers: [container('Worker')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'container name "a.b" (a label has no dots)',
      gpu,
      request: { containers: [container('a.b')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'empty container name',
      gpu,
      request: { containers: [container('')] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'container name of 64 characters',
      gpu,
      request: { containers: [container('a'.repeat(64))] },
      errors: [['container-name-format', 'containers.0.name']],
    },
    {
      label: 'two containers named "worker"',
      gpu,
      request: { containers: [container('worker'), container('worker')] },
      errors: [['container-name-unique', 'containers.1.name']],
    },
    {
      label: 'two containers with their own names',
      gpu,
      request: { containers: [container('worker'), container('sidecar')] },
      errors: [],
    },
    {
      label: 'empty image',
      gpu,
      request: { containers: [container('worker', '')] },
      errors: [['image-required', 'containers.0.image']],
    },
    {
      label: 'blank image',
      gpu,
      request: { containers: [container('worker', '   ')] },
      errors: [['image-required', 'containers.0.image']],
    },
    {
      label: 'no containers',
      gpu,
      request: { containers: [] },
      errors: [['containers-required', 'containers']],
    },
    { label: '0 replicas', gpu, request: { replicas: 0 }, errors: [] },
    { label: '3 replicas', gpu, request: { replicas: 3 }, errors: [] },
    {
      label: '-1 replicas',
      gpu,
      request: { replicas: -1 },
      errors: [['replicas-range', 'replicas']],
    },
    {
      label: '1.5 replicas',
      gpu,
      request: { replicas: 1.5 },
      errors: [['replicas-range', 'replicas']],
    },
    {
      label: 'nvidia with multi-card sharing (mGPU only)',
      gpu: { type: 'nvidia', multiCard: true, cards: 2 },
      errors: [['multi-card-mgpu-only', 'containers.0.gpu.multiCard']],
    },
    {
      label: 'nvidia with 0 cards',
      gpu: { type: 'nvidia', cards: 0 },
      errors: [['cards-range', CARDS]],
    },
    {
      label: 'nvidia with 9 cards',
      gpu: { type: 'nvidia', cards: 9 },
      errors: [['cards-range', CARDS]],
    },
    {
      label: 'two containers asking for different models',
      gpu,
      request: {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: { ...gpu, model: 'NVIDIA-L20' } },
          { name: 'b', image: 'nginx:1.27', gpu: { ...gpu, model: 'Tesla-V100' } },
        ],
      },
      errors: [['model-conflict', 'containers.1.gpu.model']],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));

  it('a container without a GPU (or type none) is valid and is not a GPU container', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [
          { name: 'plain', image: 'busybox' },
          { name: 'none', image: 'busybox', gpu: { type: 'none' } },
        ],
      }),
    );
    expectErrors(result, []);
    expect(result.containers).toEqual([]);
    for (const c of result.manifest?.spec.template.spec.containers ?? []) {
      expect(c.resources).toBeUndefined();
    }
  });
});

describe('the check result (spec §7)', () => {
  it('lists only the GPU containers whose own fields are valid', () => {
    const result = checkRequest(
      requestOf(undefined, {
        name: 'Bad_Name',
        containers: [
          { name: 'good', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') },
          { name: 'bad', image: 'nginx:1.27', gpu: multi('1', 3, '3') },
          { name: 'plain', image: 'busybox' },
        ],
      }),
    );
    expect(result.valid).toBe(false);
    expect(result.manifest).toBeUndefined();
    expect(result.containers.map((c) => [c.name, c.cards, c.perCard])).toEqual([
      ['good', 2, { computePercent: 60, memoryMiB: 4096 }],
    ]);
  });

  it('a compute or memory sent as a JSON number is judged as its decimal text', () => {
    const asNumbers = checkRequest(
      WorkloadRequestSchema.parse({
        name: 'demo',
        containers: [{ name: 'worker', image: 'nginx:1.27', gpu: { compute: 0.29, memoryGiB: 8 } }],
      }),
    );
    expectErrors(asNumbers, []);
    expect(limitsOf(asNumbers)).toEqual({ [CORE]: '29', [MEM]: '8192' });
  });
});

describe('spec §3 worked examples', () => {
  it('c=1.2, n=2 → 60 % per card, mgpu-core "120"', () => {
    const result = checkRequest(requestOf(multi('1.2', 2, '8')));
    expectErrors(result, []);
    expect(result.containers[0]?.perCard.computePercent).toBe(60);
    expect(limitsOf(result)?.[CORE]).toBe('120');
  });

  it('c=1, n=3 → 33.33…% per card: per-card-compute-precision', () => {
    expectErrors(checkRequest(requestOf(multi('1', 3, '3'))), [
      ['per-card-compute-precision', COMPUTE],
    ]);
  });

  it('12 GiB over 3 cards → 4096 MiB per card', () => {
    const result = checkRequest(requestOf(multi('0.9', 3, '12')));
    expectErrors(result, []);
    expect(result.containers[0]?.perCard.memoryMiB).toBe(4096);
    expect(limitsOf(result)?.[MEM]).toBe('12288');
  });

  it('5 GiB over 3 cards → 1706.67 MiB: per-card-memory-integer', () => {
    expectErrors(checkRequest(requestOf(multi('0.9', 3, '5'))), [
      ['per-card-memory-integer', MEMORY],
    ]);
  });

  it('c=2, n=2 → whole cards: memory must be empty', () => {
    expectErrors(checkRequest(requestOf(multi('2', 2, '8'))), [['memory-with-whole-card', MEMORY]]);
    const result = checkRequest(requestOf(multi('2', 2)));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [CORE]: '200' });
  });
});

describe('the manifest (spec §4)', () => {
  const seedRequest: WorkloadRequestInput = SEED_REQUEST;

  it("the seed's example (1.2 on 2 cards, 8 GiB, native-burst-share) is valid", () => {
    const result = checkRequest(WorkloadRequestSchema.parse(seedRequest));
    expectErrors(result, []);
    expect(result.containers).toHaveLength(1);
    expect(result.containers[0]).toMatchObject({
      name: 'worker',
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 4096 },
    });

    const manifest = result.manifest as DeploymentManifest | undefined;
    expect(manifest).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'demo', namespace: 'default' },
      spec: { replicas: 1 },
    });
    const template = manifest?.spec.template;
    expect(template?.metadata.annotations).toEqual({
      'vke.volcengine.com/multiple-mgpu-worker': '2',
      [POLICY_ANNOTATION]: 'native-burst-share',
    });
    const container = template?.spec.containers[0];
    expect(container).toMatchObject({ name: 'worker', image: 'nginx:1.27' });
    expect(container?.resources?.limits).toEqual({ [CORE]: '120', [MEM]: '8192' });
    expect(container?.resources?.requests).toEqual(container?.resources?.limits);
    expect(
      template?.spec.affinity?.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
        .nodeSelectorTerms,
    ).toEqual([
      { matchExpressions: [{ key: MODEL_LABEL, operator: 'In', values: ['NVIDIA-L20'] }] },
    ]);
    // The Deployment must select its own pods.
    expect(template?.metadata.labels).toMatchObject(manifest?.spec.selector.matchLabels ?? {});
  });

  it("the seed's annotation form for a container named pod-demo", () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [{ name: 'pod-demo', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    );
    const annotations = result.manifest?.spec.template.metadata.annotations ?? {};
    expect(annotations['vke.volcengine.com/multiple-mgpu-pod-demo']).toBe('2');
    // Read both forms, write the seed's (§4).
    expect(annotations['vke.volcengine.com/container-multiple-gpu']).toBeUndefined();
  });

  it('no model → no node affinity; no policy → no policy annotation', () => {
    const result = checkRequest(requestOf(single('0.5', '8'), { computePolicy: undefined }));
    expectErrors(result, []);
    expect(result.manifest?.spec.template.spec.affinity).toBeUndefined();
    expect(
      result.manifest?.spec.template.metadata.annotations?.[POLICY_ANNOTATION],
    ).toBeUndefined();
    expect(limitsOf(result)).toEqual({ [CORE]: '50', [MEM]: '8192' });
  });

  it('an empty model means any model: no node affinity', () => {
    const result = checkRequest(requestOf({ ...single('0.5', '8'), model: '' }));
    expectErrors(result, []);
    expect(result.manifest?.spec.template.spec.affinity).toBeUndefined();
  });

  it('a single-card slice has no multi-card annotation', () => {
    const result = checkRequest(requestOf(single('0.5', '8')));
    const keys = Object.keys(result.manifest?.spec.template.metadata.annotations ?? {});
    expect(keys.filter((k) => k.includes('multiple'))).toEqual([]);
  });

  it('whole cards without multi-card sharing: mgpu-core only', () => {
    const result = checkRequest(requestOf(single('2')));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [CORE]: '200' });
  });

  it('nvidia whole cards: nvidia.com/gpu "<n>", nothing of mGPU', () => {
    const result = checkRequest(requestOf({ type: 'nvidia', cards: 2, model: 'Tesla-V100' }));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [NVIDIA]: '2' });
    expect(result.manifest?.spec.template.spec.containers[0]?.resources?.requests).toEqual({
      [NVIDIA]: '2',
    });
    expect(result.containers[0]).toMatchObject({
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    });
    expect(
      result.manifest?.spec.template.spec.affinity?.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions[0],
    ).toEqual({ key: MODEL_LABEL, operator: 'In', values: ['Tesla-V100'] });
  });

  it('the model label is configurable', () => {
    const result = checkRequest(requestOf({ ...single('0.5', '8'), model: 'NVIDIA-L20' }), {
      modelLabel: 'example.com/gpu',
    });
    expect(
      result.manifest?.spec.template.spec.affinity?.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions[0]
        ?.key,
    ).toBe('example.com/gpu');
  });

  it('several containers: one annotation per multi-card container, resources per container', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') },
          { name: 'b', image: 'nginx:1.27', gpu: single('0.3', '2') },
          { name: 'c', image: 'nginx:1.27', gpu: multi('0.9', 3, '12') },
          { name: 'd', image: 'busybox' },
        ],
      }),
    );
    expectErrors(result, []);
    expect(result.manifest?.spec.template.metadata.annotations).toEqual({
      'vke.volcengine.com/multiple-mgpu-a': '2',
      'vke.volcengine.com/multiple-mgpu-c': '3',
      [POLICY_ANNOTATION]: 'native-burst-share',
    });
    expect(limitsOf(result, 0)).toEqual({ [CORE]: '120', [MEM]: '8192' });
    expect(limitsOf(result, 1)).toEqual({ [CORE]: '30', [MEM]: '2048' });
    expect(limitsOf(result, 2)).toEqual({ [CORE]: '90', [MEM]: '12288' });
    expect(limitsOf(result, 3)).toBeUndefined();
    expect(result.containers.map((c) => [c.name, c.cards, c.perCard])).toEqual([
      ['a', 2, { computePercent: 60, memoryMiB: 4096 }],
      ['b', 1, { computePercent: 30, memoryMiB: 2048 }],
      ['c', 3, { computePercent: 30, memoryMiB: 4096 }],
    ]);
  });

  it('replicas 0 is written as 0', () => {
    const result = checkRequest(requestOf(single('0.5', '8'), { replicas: 0 }));
    expect((result.manifest as DeploymentManifest | undefined)?.spec.replicas).toBe(0);
  });

  // §3: "All arithmetic is exact decimal arithmetic"; §4: mgpu-core is "<c × 100>". Each c is
  // accepted (1000 cards is the largest compute-format takes), so the limit is always read; in
  // binary floats 1.1 × 100 is 110.00000000000001 (0.29 has its own case above).
  it.each([
    ['the largest whole-card compute', single('1000'), '100000'],
    ['1.1 over 2 cards', multi('1.1', 2, '8'), '110'],
  ])('mgpu-core is c × 100 exactly: %s', (_, gpu, core) => {
    const result = checkRequest(requestOf(gpu));
    expectErrors(result, []);
    expect(limitsOf(result)?.[CORE]).toBe(core);
  });
});

/** The §7 labels of the form's fields (and plain names for the ordinary Kubernetes fields). */
const LABELS: Record<Lang, Record<string, string>> = {
  'zh-CN': {
    type: 'GPU 资源类型',
    multiCard: '多卡共享',
    compute: 'GPU 算力',
    memoryGiB: 'GPU 显存',
    cards: 'GPU 卡数',
    model: '显卡类型',
    computePolicy: '算力分配策略',
    name: '名称',
    namespace: '命名空间',
    replicas: '副本数',
    image: '镜像',
  },
  en: {
    type: 'GPU resource type',
    multiCard: 'Multi-card sharing',
    compute: 'GPU compute',
    memoryGiB: 'GPU memory',
    cards: 'GPU cards',
    model: 'GPU model',
    computePolicy: 'Compute policy',
    name: 'Name',
    namespace: 'Namespace',
    replicas: 'Replicas',
    image: 'Image',
  },
};

/** The label of the field a path points at; `containers.N.name` is the container's name. */
function labelOf(path: string, lang: Lang): string | undefined {
  if (path === 'containers') return undefined;
  const last = path.split('.').at(-1) ?? '';
  if (/^containers\.\d+\.name$/.test(path)) return lang === 'en' ? 'Container name' : '容器名称';
  return LABELS[lang][last];
}

describe('messages in zh-CN and en', () => {
  const inventory: GpuInventory = {
    pools: [
      {
        model: 'NVIDIA-L20',
        resourceType: 'mgpu',
        policy: 'native-burst-share',
        cardsPerNode: 4,
        memoryMiBPerCard: 49152,
        nodes: 1,
      },
      {
        model: 'Tiny-2G',
        resourceType: 'mgpu',
        policy: 'native-burst-share',
        cardsPerNode: 8,
        memoryMiBPerCard: 2048,
        nodes: 1,
      },
    ],
    // 2 nodes of 110 pods: only a corpus entry of more replicas is over it.
    podSlots: { nodes: 2, pods: 220 },
    // Only the corpus entry in this namespace is over it.
    quotas: [
      {
        namespace: 'quota-test',
        name: 'gpu',
        hard: { 'requests.vke.volcengine.com/mgpu-core': 40 },
        used: {},
      },
    ],
  };
  /** Cluster-aware cases carry the inventory; the others are checked without one. */
  const failing: { label: string; request: WorkloadRequest; inventory?: GpuInventory }[] = [
    { label: 'compute "abc"', request: requestOf(single('abc', '8')) },
    { label: 'compute 0.009', request: requestOf(single('0.009', '8')) },
    { label: 'compute 0.999', request: requestOf(single('0.999', '8')) },
    { label: 'compute 1.25', request: requestOf(single('1.25')) },
    { label: 'compute empty', request: requestOf(single('', '8')) },
    { label: 'compute 1.5 single', request: requestOf(single('1.5')) },
    { label: 'cards 9', request: requestOf(multi('0.8', 9, '8')) },
    { label: '1 over 3', request: requestOf(multi('1', 3, '3')) },
    { label: '3 over 2', request: requestOf(multi('3', 2)) },
    { label: 'slice without memory', request: requestOf(single('0.5')) },
    { label: 'memory "abc"', request: requestOf(single('0.5', 'abc')) },
    { label: 'whole card with memory', request: requestOf(multi('2', 2, '8')) },
    { label: '5 GiB over 3', request: requestOf(multi('0.9', 3, '5')) },
    { label: '80.5 GiB', request: requestOf(single('0.5', '80.5')) },
    { label: '0.5 GiB', request: requestOf(single('0.5', '0.5')) },
    {
      label: 'multi-card under fixed-share',
      request: requestOf(multi('1.2', 2, '8'), { computePolicy: 'fixed-share' }),
    },
    {
      label: 'multi-card with a 50-character name',
      request: requestOf(undefined, {
        containers: [{ name: 'w'.repeat(50), image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    },
    {
      label: 'unknown model',
      request: requestOf({ ...single('0.5', '8'), model: 'NVIDIA-H100' }),
      inventory,
    },
    {
      label: '12 GiB over 3 on a 2 GiB model',
      request: requestOf({ ...multi('0.9', 3, '12'), model: 'Tiny-2G' }),
      inventory,
    },
    {
      label: '5 L20 cards',
      request: requestOf({ ...multi('2.5', 5, '10'), model: 'NVIDIA-L20' }),
      inventory,
    },
    {
      label: '8 whole L20 cards without multi-card sharing',
      request: requestOf({ ...single('8'), model: 'NVIDIA-L20' }),
      inventory,
    },
    { label: 'name "My_App"', request: requestOf(single('0.5', '8'), { name: 'My_App' }) },
    {
      label: 'namespace "Team_A"',
      request: requestOf(single('0.5', '8'), { namespace: 'Team_A' }),
    },
    {
      label: 'container "Worker_1", no image',
      request: requestOf(undefined, { containers: [{ name: 'Worker_1', image: '' }] }),
    },
    {
      label: 'duplicate container names',
      request: requestOf(undefined, {
        containers: [
          { name: 'worker', image: 'nginx:1.27' },
          { name: 'worker', image: 'nginx:1.27' },
        ],
      }),
    },
    { label: 'no containers', request: requestOf(undefined, { containers: [] }) },
    { label: 'replicas -1', request: requestOf(single('0.5', '8'), { replicas: -1 }) },
    {
      label: 'replicas beyond the cluster',
      request: requestOf({ ...single('0.5', '8'), model: 'NVIDIA-L20' }, { replicas: 1000 }),
      inventory,
    },
    {
      label: 'reserved namespace',
      request: requestOf(single('0.5', '8'), { namespace: 'kube-system' }),
    },
    {
      label: 'image with uppercase path',
      request: requestOf(undefined, { containers: [{ name: 'w', image: 'Nginx:1.27' }] }),
    },
    { label: 'name of 64 characters', request: requestOf(undefined, { name: 'a'.repeat(64) }) },
    {
      label: "pods without GPU beyond the nodes' pod slots",
      request: requestOf(undefined, { replicas: 1_000_000_000 }),
      inventory,
    },
    {
      label: 'StatefulSet named with a dot',
      request: requestOf(single('0.5', '8'), { kind: 'StatefulSet', name: 'web.v2' }),
    },
    {
      label: 'StatefulSet named with 53 characters',
      request: requestOf(single('0.5', '8'), { kind: 'StatefulSet', name: 's'.repeat(53) }),
    },
    {
      label: 'too many containers',
      request: requestOf(undefined, {
        containers: Array.from({ length: 33 }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.27' })),
      }),
    },
    {
      label: 'unknown policy',
      request: requestOf(single('0.5', '8'), { computePolicy: 'best-effort' }),
    },
    {
      label: 'nvidia multi-card',
      request: requestOf({ type: 'nvidia', multiCard: true, cards: 2 }),
    },
    {
      label: 'over the namespace quota',
      request: requestOf(single('0.5', '8'), { namespace: 'quota-test' }),
      inventory,
    },
    {
      label: 'different models',
      request: requestOf(undefined, {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: { ...single('0.5', '8'), model: 'NVIDIA-L20' } },
          { name: 'b', image: 'nginx:1.27', gpu: { ...single('0.5', '8'), model: 'Tiny-2G' } },
        ],
      }),
    },
  ];

  it('the corpus below breaks every rule id a check can report', () => {
    const seen = new Set(
      failing.flatMap(({ request, inventory }) =>
        evaluateRequest(request, inventory).violations.map((v) => v.rule),
      ),
    );
    // `requests-equal-limits` judges an existing object (lint); a request has no requests or limits.
    const checkable = [...MGPU_RULES, ...KUBERNETES_RULES].filter(
      (rule) => rule !== 'requests-equal-limits',
    );
    expect(checkable.filter((rule) => !seen.has(rule))).toEqual([]);
  });

  const cases = (['zh-CN', 'en'] as const).flatMap((lang) =>
    failing.map((entry) => ({ lang, ...entry })),
  );
  it.each(cases)(
    '$lang: $label — message names the field, fix is given',
    ({ lang, request, inventory }) => {
      const result = checkRequest(request, { lang, ...(inventory ? { inventory } : {}) });
      expect(result.errors.length).toBeGreaterThan(0);
      for (const error of result.errors) {
        expect(error.message.trim(), `${error.rule} @ ${error.path}`).not.toBe('');
        const label = labelOf(error.path, lang);
        if (label !== undefined) {
          expect(error.message, `${error.rule} @ ${error.path} names "${label}"`).toContain(label);
        }
        expect(error.fix?.trim() ?? '', `${error.rule} @ ${error.path} has a fix`).not.toBe('');
      }
    },
  );

  it.each(['zh-CN', 'en'] as const)('%s: 1 card over 3 says 33.33…% and suggests 1.2', (lang) => {
    const [error] = checkRequest(requestOf(multi('1', 3, '3')), { lang }).errors;
    expect(error?.message).toContain('33.33');
    expect(error?.fix).toContain('1.2');
  });

  it.each(['zh-CN', 'en'] as const)(
    '%s: 5 GiB over 3 cards says 1706.67 MiB and suggests whole GiB amounts that fit',
    (lang) => {
      const [error] = checkRequest(requestOf(multi('0.9', 3, '5')), { lang }).errors;
      expect(error?.message).toContain('1706.67');
      const [violation] = evaluateRequest(requestOf(multi('0.9', 3, '5'))).violations;
      expect(violation?.rule).toBe('per-card-memory-integer');
      if (violation?.rule !== 'per-card-memory-integer') return;
      expect(violation.params.suggestions.length).toBeGreaterThan(0);
      for (const gib of violation.params.suggestions) {
        expect(error?.fix).toContain(`${gib} GiB`);
        expectErrors(checkRequest(requestOf(multi('0.9', 3, gib))), []);
      }
    },
  );

  it.each(['zh-CN', 'en'] as const)(
    '%s: 12 GiB over 3 cards is said as 4096 MiB per card where it matters',
    (lang) => {
      const result = checkRequest(requestOf({ ...multi('0.9', 3, '12'), model: 'Tiny-2G' }), {
        lang,
        inventory,
      });
      const error = result.errors.find((e) => e.rule === 'per-card-memory-exceeds-model');
      expect(error?.message).toContain('4096 MiB');
    },
  );

  it('the language changes the words only', () => {
    for (const { request } of failing) {
      const zh = checkRequest(request, { lang: 'zh-CN', inventory });
      const en = checkRequest(request, { lang: 'en', inventory });
      const bare = (result: CheckResult) => result.errors.map(({ rule, path }) => ({ rule, path }));
      expect(bare(zh)).toEqual(bare(en));
      expect(zh.containers).toEqual(en.containers);
      expect(zh.errors.map((e) => e.message)).not.toEqual(en.errors.map((e) => e.message));
    }
  });
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
