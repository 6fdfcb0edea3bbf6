import { z } from 'zod';

/** `cluster.quotas`: the mGPU quotas of one namespace, or of every namespace. */
export const QuotasInputSchema = z.object({ namespace: z.string().optional() }).optional();

/** One ResourceQuota's GPU resources, used / limit in the quota's units. */
export const QuotaUsageSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  resources: z.array(
    z.object({
      /** `requests.vke.volcengine.com/mgpu-core` (percent of a card) or `…/mgpu-memory` (MiB). */
      resource: z.string(),
      used: z.number(),
      limit: z.number(),
    }),
  ),
});

export const ClusterQuotasSchema = z.array(QuotaUsageSchema);

export type QuotaUsage = z.infer<typeof QuotaUsageSchema>;
