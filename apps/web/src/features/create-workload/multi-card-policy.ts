import type { GpuModel } from '@mgpu/shared';

/** The one policy multi-card sharing runs under (spec §2, rule `multi-card-policy`). */
export const MULTI_CARD_POLICY = 'native-burst-share';

/**
 * The compute policy to select when multi-card sharing is switched on: native-burst-share, the
 * only one it runs under, when no policy was chosen yet and some mGPU pool of the cluster has it
 * (or the pools are not known to this operator). A policy the operator chose stays: the rule then
 * says why it must change.
 */
export function policyForMultiCard(
  current: string | null | undefined,
  models: readonly GpuModel[],
): string | undefined {
  if (current !== undefined && current !== null && current !== '') return undefined;
  const poolsAllow =
    models.length === 0 ||
    models.some(
      (model) => model.resourceTypes.includes('mgpu') && model.policies.includes(MULTI_CARD_POLICY),
    );
  return poolsAllow ? MULTI_CARD_POLICY : undefined;
}
