import { describe, expect, it } from 'vitest';
import type { GpuModel } from './api/gpu-models.js';
import { policyForMultiCard } from './request-rules.js';

const pool = (
  policies: string[],
  resourceTypes: GpuModel['resourceTypes'] = ['mgpu'],
): GpuModel => ({
  model: 'NVIDIA-L20',
  memoryMiBPerCard: 49152,
  cardsPerNode: 4,
  resourceTypes,
  policies,
});

describe('the policy multi-card sharing selects', () => {
  it('is native-burst-share instead of no policy when an mGPU pool has it', () => {
    expect(
      policyForMultiCard(undefined, [pool(['fixed-share']), pool(['native-burst-share'])]),
    ).toBe('native-burst-share');
    expect(policyForMultiCard('', [])).toBe('native-burst-share');
  });

  it('keeps a policy the operator chose', () => {
    expect(policyForMultiCard('fixed-share', [pool(['native-burst-share'])])).toBeUndefined();
  });

  it('is not chosen when no mGPU pool of the cluster runs it', () => {
    expect(policyForMultiCard(undefined, [pool(['fixed-share'])])).toBeUndefined();
    expect(
      policyForMultiCard(undefined, [pool(['native-burst-share'], ['nvidia'])]),
    ).toBeUndefined();
  });
});
