/**
 * The rows and helpers of the spec-driven check tests (`src/check.*.test.ts`): an independent
 * reading of the rule engine (spec §2, §3, §4, §7; the seed `mgpu-multi-card-sharing.zh.txt`;
 * issue 3). Each table row is one input an operator could type, the exact rule ids and paths the
 * spec makes of it, and the per-card shares when valid.
 */
import { expect } from 'vitest';
import { type CheckOptions, type CheckResult, checkRequest } from '../check.js';
import {
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from '../request.js';
import type { RuleId } from '../rules.js';

export type ContainerInput = WorkloadRequestInput['containers'][number];
export type GpuInput = NonNullable<ContainerInput['gpu']>;
export type Expected = readonly (readonly [RuleId, string])[];
export interface Share {
  computePercent: number;
  memoryMiB: number | null;
}

export const COMPUTE = 'containers.0.gpu.compute';
export const MEMORY = 'containers.0.gpu.memoryGiB';
export const CARDS = 'containers.0.gpu.cards';
export const MODEL = 'containers.0.gpu.model';
export const CORE = 'vke.volcengine.com/mgpu-core';
export const MEM = 'vke.volcengine.com/mgpu-memory';
export const NVIDIA = 'nvidia.com/gpu';
export const MODEL_LABEL = 'machine.cluster.vke.volcengine.com/gpu-name';
export const POLICY_ANNOTATION = 'vke.volcengine.com/mgpu-compute-policy';

/** A one-container request in the §7 shape; multi-card cases need native-burst-share, so it is the default. */
export function requestOf(
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
export const single = (compute: string, memoryGiB?: string): GpuInput => ({
  type: 'mgpu',
  multiCard: false,
  compute,
  ...(memoryGiB !== undefined ? { memoryGiB } : {}),
});

/** Multi-card sharing on with `cards` typed into GPU 卡数. */
export const multi = (
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

export const describeErrors = (result: CheckResult) =>
  result.errors.map((error) => `${error.rule} @ ${error.path}`).sort();

/** Exactly these rules at these paths (order free); valid ⇔ none, and then a manifest. */
export function expectErrors(result: CheckResult, expected: Expected): void {
  expect(describeErrors(result)).toEqual(
    expected.map(([rule, path]) => `${rule} @ ${path}`).sort(),
  );
  expect(result.valid).toBe(expected.length === 0);
  if (expected.length === 0) expect(result.manifest).toBeDefined();
  else expect(result.manifest).toBeUndefined();
}

export function limitsOf(result: CheckResult, index = 0): Record<string, string> | undefined {
  return result.manifest?.spec.template.spec.containers[index]?.resources?.limits;
}

export interface Row {
  label: string;
  gpu: GpuInput;
  request?: Partial<WorkloadRequestInput>;
  errors: Expected;
  /** For valid rows: the container's card count and per-card shares (spec §7 `containers`). */
  cards?: number;
  perCard?: Share;
}

export function runRow(
  { gpu, request, errors, cards, perCard }: Row,
  options: CheckOptions = {},
): void {
  const result = checkRequest(requestOf(gpu, request), options);
  expectErrors(result, errors);
  if (perCard !== undefined) {
    expect(result.containers).toHaveLength(1);
    expect(result.containers[0]).toMatchObject({ name: 'worker', cards, perCard });
  }
}
