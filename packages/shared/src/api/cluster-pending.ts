import { z } from 'zod';
import { CardClaimSchema, CardTypeSchema } from '../ledger/claim.js';
import { SnapshotPartSchema } from '../snapshot-parts.js';
import { ListEventTypeSchema, RejectionSchema } from './building-blocks.js';
import { PoolSummarySchema } from './cluster-summary.js';

/** The schemas of `cluster.pending`, `cluster.pendingGroups` and `cluster.pendingWatch`. */

/**
 * One mGPU pod the scheduler has not placed (spec §8 `cluster.pending`): since when it waits, its
 * workload, and the placement asked again now — why each node group turns it down (codes the
 * browser words in the operator's language) and, for pools that lack only room, the largest
 * request each still fits (exact: the same `largestFit` the pool overview shows).
 */
export const PendingPodSchema = z.object({
  namespace: z.string(),
  pod: z.string(),
  /** The owning workload (a Deployment's name for its pods), null for a bare pod. */
  workload: z.string().nullable(),
  /** When the pod was created (ISO 8601): it has waited since. */
  since: z.string(),
  /** What the pod asks per GPU container, as the scheduler reads it. */
  containers: z.array(
    z.object({
      name: z.string(),
      type: CardTypeSchema,
      cards: z.number(),
      perCard: CardClaimSchema,
    }),
  ),
  /** Empty while some node would take it now (the scheduler has not got to it yet). */
  rejections: z.array(RejectionSchema),
  /** The same verdict in the scheduler's English (kube-scheduler style), empty when none. */
  message: z.string(),
  /**
   * The pool of the node that would take it now, if one would; else null. Absent, like
   * `largestFits` and the rejections' nodes, for an operator who may not list nodes (spec §8).
   */
  fitsNow: z.string().nullable().optional(),
  /** Pools whose nodes turn the pod down only for lack of room, with what still fits there. */
  largestFits: z
    .array(
      z.object({
        pool: z.string(),
        largestFit: PoolSummarySchema.shape.largestFit,
        /** Per card, on the pod's own (widest container's) card count (`largestFitOnCards`). */
        onCards: z
          .object({ cards: z.number(), computePercent: z.number(), memoryMiB: z.number() })
          .optional(),
      }),
    )
    .optional(),
  /** True when node names and per-pool figures were left out: the operator may not list nodes. */
  nodesWithheld: z.boolean().optional(),
});

export const PendingInputSchema = z
  .object({
    namespace: z.string().optional(),
    /** At most this many pods (absent: every pod, as spec §8 has it). */
    limit: z.number().int().min(1).optional(),
    /** Only the pods after this one in the list's order: `pendingPodCursor` of a page's last pod. */
    after: z.string().optional(),
  })
  .optional();

export const PendingWatchInputSchema = z.object({
  namespace: z.string().optional(),
  /** tRPC passes the SSE `Last-Event-ID` here; the groups are a state: a reconnect gets them whole. */
  lastEventId: z.string().nullish(),
});

export const PendingPodsSchema = z.array(PendingPodSchema);

/**
 * The grouped pending pods (issue 25): a workload's waiting replicas ask the same, so the
 * scheduler's verdict — rejections per node group, what still fits — is said once per request
 * shape and the pods are listed under it. 1,500 replicas are one group, not 1,500 copies of it.
 */

/** One waiting pod of a group: its name and since when it waits (ISO 8601). */
export const PendingGroupPodSchema = PendingPodSchema.pick({ pod: true, since: true });

/**
 * The pending pods of one namespace and workload that ask the same (containers, policy, model,
 * node selection): the fields a pod of `cluster.pending` has, but the pod's own, once for all.
 */
export const PendingGroupSchema = PendingPodSchema.omit({ pod: true, since: true }).extend({
  /** Stable while the group waits: namespace, workload and a digest of the shape. */
  key: z.string(),
  /** When its oldest pod was created: the group has waited since. */
  since: z.string(),
  /** How many pods wait in it (`pods` may list fewer: the first, oldest first). */
  podCount: z.number().int().nonnegative(),
  pods: z.array(PendingGroupPodSchema),
});

/** Pods listed per group unless asked for more: a list nobody reads to the end is counted. */
export const PENDING_GROUP_PODS = 20;

export const PendingGroupsInputSchema = z
  .object({
    namespace: z.string().optional(),
    /** Only this group (the dashboard's "show more" of one group). */
    key: z.string().optional(),
    /** From `nextCursor` of the page before; absent: the first page. */
    cursor: z.string().optional(),
    /** Groups per page. */
    limit: z.number().int().min(1).max(500).default(100),
    /** Pods listed per group (oldest first); `podCount` counts them all. */
    podLimit: z.number().int().min(0).max(5000).default(PENDING_GROUP_PODS),
  })
  .optional();

/** `cluster.pendingGroups`: one page of groups, oldest first, and where the next page starts. */
export const PendingGroupsSchema = z.object({
  groups: z.array(PendingGroupSchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** Across every page: the groups and the pods waiting in them. */
  groupCount: z.number().int().nonnegative(),
  podCount: z.number().int().nonnegative(),
});

/**
 * `cluster.pendingWatch`: a `snapshot` of every group (in parts when large) replaces what the
 * subscriber had; then `upsert` brings a new or changed group, `delete` one that no longer waits.
 * Groups list their first `PENDING_GROUP_PODS` pods; `cluster.pendingGroups` gives the rest.
 */
export const PendingGroupEventSchema = z.object({
  type: ListEventTypeSchema,
  groups: z.array(PendingGroupSchema),
  ...SnapshotPartSchema.shape,
});

export type PendingPod = z.infer<typeof PendingPodSchema>;
export type PendingGroup = z.infer<typeof PendingGroupSchema>;
export type PendingGroupPod = z.infer<typeof PendingGroupPodSchema>;
export type PendingGroupsPage = z.infer<typeof PendingGroupsSchema>;
export type PendingGroupEvent = z.infer<typeof PendingGroupEventSchema>;
