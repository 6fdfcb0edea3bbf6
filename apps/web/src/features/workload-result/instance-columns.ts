import type { AllocationRecord } from '@mgpu/shared';

/** The node's three compute weights (spec §6), which often all report the same number. */
export const WEIGHT_FIELDS = [
  'compute_weight_native_burst',
  'compute_weight_online',
  'compute_weight',
] as const;

/**
 * Whether every record reports the same value in all three weight fields: then one column says
 * it (issue 27: thirteen columns, three of them the same number), and the raw fields stay one
 * click away.
 */
export function weightsAgree(records: readonly AllocationRecord[]): boolean {
  return records.every((record) => {
    const [first, ...rest] = WEIGHT_FIELDS.map((field) => record[field]);
    return rest.every((value) => value === first);
  });
}
