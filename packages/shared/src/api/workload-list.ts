import { z } from 'zod';
import { WORKLOAD_KINDS } from '../read-workload.js';
import { ContainerShareSchema, WorkloadRefSchema } from './building-blocks.js';

/** `workload.list`: the workloads the console sees, in one namespace or all. */
export const WorkloadListInputSchema = z.object({ namespace: z.string().optional() }).optional();

/** How a workload's mGPU instances compare with what it asked (from the allocation records). */
export const WORKLOAD_VERIFICATIONS = ['verified', 'drift', 'unknown'] as const;

export const WorkloadSummarySchema = WorkloadRefSchema.extend({
  kind: z.enum(WORKLOAD_KINDS),
  uid: z.string(),
  /** Opaque; `workload.update` sends it back (spec §8). */
  resourceVersion: z.string(),
  createdAt: z.string().nullable(),
  replicas: z.number(),
  readyReplicas: z.number(),
  availableReplicas: z.number(),
  managedByConsole: z.boolean(),
  computePolicy: z.string().nullable(),
  containers: z.array(ContainerShareSchema),
  /**
   * `verified`: every instance the nodes report matches; `drift`: one does not; `unknown`:
   * nothing reported yet (or no instances).
   */
  verification: z.enum(WORKLOAD_VERIFICATIONS),
});

export const WorkloadListSchema = z.array(WorkloadSummarySchema);

export type WorkloadSummary = z.infer<typeof WorkloadSummarySchema>;
export type WorkloadVerification = (typeof WORKLOAD_VERIFICATIONS)[number];
