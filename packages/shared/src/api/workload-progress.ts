import { z } from 'zod';
import { AllocationRecordSchema } from '../allocations.js';
import { WORKLOAD_KINDS } from '../read-workload.js';
import { ROLLOUT_STALLS } from '../rollout.js';
import { RejectionSchema, WorkloadRefSchema } from './building-blocks.js';
import { WorkloadStateSchema } from './workload-list.js';

/**
 * `workload.progress`: the timeline of one workload, sent again whenever it changes. It is a
 * state, not a log: a reconnect (whatever its `lastEventId`) gets the current state first.
 */
export const WorkloadProgressInputSchema = WorkloadRefSchema.extend({
  lastEventId: z.string().nullish(),
});

export const PROGRESS_STAGES = ['created', 'scheduled', 'running', 'verified'] as const;

export const ProgressStageSchema = z.object({
  stage: z.enum(PROGRESS_STAGES),
  state: z.enum(['done', 'pending', 'failed']),
  detail: z.string().nullable(),
});

/** A Deployment's or StatefulSet's rolling update (`readRollout`): old and new pods, counts, stall. */
export const WorkloadRolloutSchema = z.object({
  newPods: z.array(z.string()),
  oldPods: z.array(z.string()),
  desired: z.number(),
  updated: z.number(),
  ready: z.number(),
  available: z.number(),
  state: z.enum(['complete', 'progressing', 'stalled']),
  stall: z.enum(ROLLOUT_STALLS).nullable(),
  message: z.string().nullable(),
});

export const WorkloadProgressSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  exists: z.boolean(),
  /** The live object's kind, so the page names (and deletes) what it shows; absent from older BFFs. */
  kind: z.enum(WORKLOAD_KINDS).optional(),
  /**
   * The version the page shows: a rollback from the page sends it back, and is refused
   * (`conflict`) once the object moved on. Absent while it does not exist, and from older BFFs.
   */
  resourceVersion: z.string().optional(),
  outcome: z.enum(['in-progress', 'verified', 'failed', 'absent']),
  stages: z.array(ProgressStageSchema),
  replicas: z.object({ desired: z.number(), ready: z.number() }),
  pods: z.array(
    z.object({
      name: z.string(),
      node: z.string().nullable(),
      phase: z.string().nullable(),
      /** The pod's containers, whose logs the page offers; absent from older BFFs. */
      containers: z.array(z.string()).optional(),
      cards: z.record(z.string(), z.array(z.number())),
      /** The scheduler's own (English) message from the PodScheduled=False condition. */
      unschedulable: z.string().nullable(),
      /**
       * The same verdict in codes and parameters, so the result view can word it in the
       * operator's language; optional because older BFFs send only the scheduler's text.
       */
      rejections: z.array(RejectionSchema).optional(),
    }),
  ),
  records: z.array(AllocationRecordSchema),
  /** Absent for a Job, and from older BFFs. */
  rollout: WorkloadRolloutSchema.optional(),
  /**
   * The workload's state (`workloadState`), the page's headline; absent only while the
   * workload does not exist, and from older BFFs. `outcome` stays for scripts that read it.
   */
  state: WorkloadStateSchema.optional(),
});

export type WorkloadProgress = z.infer<typeof WorkloadProgressSchema>;
export type ProgressStage = z.infer<typeof ProgressStageSchema>;
export type WorkloadRolloutView = z.infer<typeof WorkloadRolloutSchema>;
