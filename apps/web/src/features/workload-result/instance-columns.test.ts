import type { AllocationRecord } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { weightsAgree } from './instance-columns.js';

const record = (native: number | null, online: number | null, weight: number | null) =>
  ({
    compute_weight_native_burst: native,
    compute_weight_online: online,
    compute_weight: weight,
  }) as unknown as AllocationRecord;

describe('the instance table’s weight columns', () => {
  it('fold into one when every instance reports the same weight three times', () => {
    expect(weightsAgree([record(60, 60, 60), record(60, 60, 60)])).toBe(true);
    expect(weightsAgree([record(null, null, null)])).toBe(true);
  });

  it('stay apart when any instance reports different weights', () => {
    expect(weightsAgree([record(60, 60, 60), record(60, 30, 60)])).toBe(false);
  });
});
