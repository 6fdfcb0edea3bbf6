import {
  type GpuModel,
  policyForMultiCard,
  type SuggestedFix,
  type WorkloadRequest,
  type WorkloadRequestInput,
} from '@mgpu/shared';
import { useCallback } from 'react';
import type { FieldPath, UseFormReturn } from 'react-hook-form';

/**
 * What the form fills in for the operator: the policy multi-card sharing needs when it is
 * switched on, and a suggested fix's values when its button is clicked (as if typed).
 */
export function useFormShortcuts(
  form: UseFormReturn<WorkloadRequestInput, unknown, WorkloadRequest>,
  models: readonly GpuModel[],
) {
  const { getValues, setValue } = form;
  const multiCardOn = useCallback(() => {
    const current: unknown = getValues('computePolicy');
    const policy = policyForMultiCard(typeof current === 'string' ? current : undefined, models);
    if (policy !== undefined) setValue('computePolicy', policy, { shouldDirty: true });
  }, [getValues, setValue, models]);
  const applyFix = useCallback(
    (fix: SuggestedFix) => {
      for (const { path, value } of fix.changes)
        setValue(path as FieldPath<WorkloadRequestInput>, value as never, {
          shouldDirty: true,
          shouldTouch: true,
        });
      if (fix.changes.some((c) => c.path.endsWith('.gpu.multiCard') && c.value === true))
        multiCardOn();
    },
    [setValue, multiCardOn],
  );
  return { multiCardOn, applyFix };
}
