import { z } from 'zod';
import { WORKLOAD_KINDS } from '../read-workload.js';
import { WORKLOAD_STATE_REASONS, WORKLOAD_STATES, type WorkloadState } from '../workload-state.js';
import { ContainerShareSchema, WorkloadRefSchema } from './building-blocks.js';

/** `workload.list`: the workloads the console sees, in one namespace or all. */
export const WorkloadListInputSchema = z.object({ namespace: z.string().optional() }).optional();

/** How a workload's mGPU instances compare with what it asked (from the allocation records). */
export const WORKLOAD_VERIFICATIONS = ['verified', 'drift', 'unknown'] as const;

/** A workload's state (`workloadState`): the one headline of the list and the result page. */
export const WorkloadStateSchema = z.object({
  state: z.enum(WORKLOAD_STATES),
  reason: z.enum(WORKLOAD_STATE_REASONS).nullable(),
  /** Kubernetes' own (English) words for the reason. */
  message: z.string().nullable(),
  pod: z.string().nullable(),
}) satisfies z.ZodType<WorkloadState>;

/**
 * Live pods that share one set of per-card shares: during a rollout the old and the new
 * template's pods differ, and the list shows each group with its pod count, never one share
 * for all. `current`: these pods run the workload's current template.
 */
export const RevisionSharesSchema = z.object({
  current: z.boolean(),
  pods: z.number(),
  ready: z.number(),
  /** Pods a node took (`spec.nodeName`): only these hold cards. */
  scheduled: z.number(),
  containers: z.array(ContainerShareSchema),
});

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
  /** Optional only for older BFFs; every summary this BFF sends has them. */
  state: WorkloadStateSchema.optional(),
  revisions: z.array(RevisionSharesSchema).optional(),
});

export const WorkloadListSchema = z.array(WorkloadSummarySchema);

export type WorkloadSummary = z.infer<typeof WorkloadSummarySchema>;
export type WorkloadStateView = z.infer<typeof WorkloadStateSchema>;
export type RevisionShares = z.infer<typeof RevisionSharesSchema>;
export type WorkloadVerification = (typeof WORKLOAD_VERIFICATIONS)[number];
