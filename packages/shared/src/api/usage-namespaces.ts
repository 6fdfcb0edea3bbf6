import { z } from 'zod';
import { UsageVerdictFields, UsageWindowMinutesSchema } from './usage-workloads.js';

/** `usage.namespaces`: per namespace (team) the figures of its workloads, over the window. */
export const UsageNamespacesInputSchema = z
  .object({ windowMinutes: UsageWindowMinutesSchema.optional() })
  .optional();

export const NamespaceUsageSchema = z.object({
  namespace: z.string(),
  ...UsageVerdictFields,
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
