import { z } from 'zod';
import { WORKLOAD_KINDS } from '../read-workload.js';
import {
  MAX_USAGE_WINDOW_MINUTES,
  USAGE_SOURCE_KINDS,
  USAGE_UNKNOWN_REASONS,
} from '../usage/terms.js';

/** Minutes the mean utilisation is taken over (default `DEFAULT_USAGE_WINDOW_MINUTES`). */
export const UsageWindowMinutesSchema = z.number().int().min(1).max(MAX_USAGE_WINDOW_MINUTES);
export const UsageSourceKindSchema = z.enum(USAGE_SOURCE_KINDS);
export const UsageUnknownReasonSchema = z.enum(USAGE_UNKNOWN_REASONS);

/** `usage.workloads`: one namespace or all, over the last `windowMinutes`. */
export const UsageWorkloadsInputSchema = z
  .object({
    namespace: z.string().optional(),
    windowMinutes: UsageWindowMinutesSchema.optional(),
  })
  .optional();

/**
 * What a workload holds: compute as Σ (compute % × cards) over its instances, so two cards at
 * 50 % are 100; memory in MiB, null when a whole card brings memory the console cannot size.
 */
export const AllocatedFiguresSchema = z.object({
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
});

/** What it uses, in the same units as the allocation; null where unknown, never 0. */
export const UsedFiguresSchema = z.object({
  computePercent: z.number().nullable(),
  memoryMiB: z.number().nullable(),
});

/** The figures of usage a workload and a namespace (team) share. */
const UsageVerdictFields = {
  source: UsageSourceKindSchema,
  /** True when the figures are the embedded cluster's model, not a real card's. */
  simulated: z.boolean(),
  allocated: AllocatedFiguresSchema,
  used: UsedFiguresSchema,
  /** used ÷ allocated compute, in 0–1; null when unknown (never 0 for unknown). */
  efficiency: z.number().min(0).max(1).nullable(),
  efficiencyUnknownReason: UsageUnknownReasonSchema.nullable(),
  /**
   * GPU-hours held while idle: card-equivalents held × the time it stayed quiet; 0 when not
   * idle, null when idleness is unknown.
   */
  idleGpuHours: z.number().min(0).nullable(),
  /** Some of the figures are a whole card's, shared with others (shown "per card"). */
  perCardOnly: z.boolean(),
};

export const WorkloadUsageSchema = z.object({
  namespace: z.string(),
  workload: z.string(),
  kind: z.enum(WORKLOAD_KINDS),
  ...UsageVerdictFields,
  /**
   * Utilisation stayed under `--idle-threshold` for `--idle-after` while holding cards; null
   * when unknown.
   */
  idle: z.boolean().nullable(),
  /** How many cards its instances sit on now (an instance per container per card). */
  instances: z.number().int().min(0),
});

export const UsageWorkloadsSchema = z.array(WorkloadUsageSchema);

export type UsageWorkloadsInput = z.infer<typeof UsageWorkloadsInputSchema>;
export type AllocatedFigures = z.infer<typeof AllocatedFiguresSchema>;
export type UsedFigures = z.infer<typeof UsedFiguresSchema>;
export type WorkloadUsage = z.infer<typeof WorkloadUsageSchema>;
export { UsageVerdictFields };
