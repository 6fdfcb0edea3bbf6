import { z } from 'zod';
import { UsageVerdictFields, UsageWindowMinutesSchema } from './usage-workloads.js';

/** `usage.namespaces`: per namespace (team) the figures of its workloads, over the window. */
export const UsageNamespacesInputSchema = z
  .object({ windowMinutes: UsageWindowMinutesSchema.optional() })
  .optional();

export const NamespaceUsageSchema = z.object({
  namespace: z.string(),
  ...UsageVerdictFields,
  /**
   * The workloads' GPU-hours held idle, summed over those whose idleness is known (a workload
   * whose figure is unknown adds nothing, so this is a lower bound while `unknownWorkloads` > 0);
   * null when none is known.
   */
  idleGpuHours: z.number().min(0).nullable(),
  /**
   * The allocation of the workloads whose use is known: `used` and `efficiency` cover only them,
   * so `used` is read beside this, not beside `allocated` (which counts every workload).
   */
  knownAllocated: z.object({ computePercent: z.number().min(0) }),
  /**
   * The team's memory as far as it is known (`allocated.memoryMiB` and `used.memoryMiB` are null
   * as soon as one workload's is): the sized workloads' allocation and how many hold whole cards
   * of unknown memory, the read workloads' use and how many are unread.
   */
  knownMemory: z.object({
    allocatedMiB: z.number().min(0),
    wholeCardWorkloads: z.number().int().min(0),
    usedMiB: z.number().min(0),
    usedUnknown: z.number().int().min(0),
  }),
  /** Workloads holding cards in the namespace. */
  workloads: z.number().int().min(0),
  /** Of them, those flagged idle. */
  idleWorkloads: z.number().int().min(0),
  /** Of them, those whose efficiency is unknown (left out of `used` and `efficiency`). */
  unknownWorkloads: z.number().int().min(0),
});

export const UsageNamespacesSchema = z.array(NamespaceUsageSchema);

export type UsageNamespacesInput = z.infer<typeof UsageNamespacesInputSchema>;
export type NamespaceUsage = z.infer<typeof NamespaceUsageSchema>;
