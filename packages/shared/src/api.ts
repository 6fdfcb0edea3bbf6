import { z } from 'zod';
import { AllocationRecordSchema } from './allocations.js';
import { isDns1123Label, isDns1123Subdomain } from './kubernetes-names.js';
import { CardClaimSchema } from './ledger/claim.js';
import { REJECTION_CODES, type RejectionParams } from './placement/rejections.js';
import { KEPT_UNEXPRESSED, LOST_UNEXPRESSED, WORKLOAD_KINDS } from './read-workload.js';
import { CREATABLE_KINDS, WorkloadRequestSchema } from './request.js';
import { ROLLOUT_STALLS } from './rollout.js';
import { LANGS, MAX_REPLICAS } from './rules.js';
import { SnapshotPartSchema } from './snapshot-parts.js';

/**
 * The BFF's procedure inputs and outputs (spec §7), declared once so the server validates what
 * it sends and the web app gets the same types.
 */

export const LangSchema = z.enum(LANGS);

export const RuleErrorSchema = z.object({
  path: z.string(),
  rule: z.string(),
  message: z.string(),
  fix: z.string().optional(),
});

export const ContainerShareSchema = z.object({
  index: z.number(),
  name: z.string(),
  type: z.enum(['mgpu', 'nvidia']),
  multiCard: z.boolean(),
  wholeCards: z.boolean(),
  cards: z.number(),
  perCard: CardClaimSchema,
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
  model: z.string().optional(),
});

export const CheckResultSchema = z.object({
  valid: z.boolean(),
  errors: z.array(RuleErrorSchema),
  containers: z.array(ContainerShareSchema),
  manifest: z.record(z.string(), z.unknown()).optional(),
  /** The node label the GPU model is pinned with (`--model-label`), for that diff's edited side. */
  modelLabel: z.string().optional(),
});

/** The values a rejection code is worded from (see `RejectionParams`). */
export const RejectionParamsSchema = z
  .object({
    rules: z.string(),
    podPolicy: z.string(),
    nodePolicy: z.string(),
    podTypes: z.string(),
    nodeType: z.string(),
    model: z.string(),
    nodeModel: z.string(),
    key: z.string(),
    value: z.string(),
    maxPods: z.number(),
    container: z.string(),
    cards: z.number(),
    nodeCards: z.number(),
    computePercent: z.number(),
    memoryMiB: z.number(),
    instances: z.number(),
    instancesPerCard: z.number(),
  })
  .partial() satisfies z.ZodType<RejectionParams>;

/**
 * Why a group of nodes (`<model>/<policy>`, or `pod` for the pod itself) would not take a pod:
 * `reason` is the constraint, `code` and `params` are language-free (`rejectionText` and
 * `rejectionLine` word them in the operator's language), `message` is the scheduler's English.
 */
export const RejectionSchema = z.object({
  group: z.string(),
  /** The group's nodes; absent for an operator who may not list nodes (spec §8). */
  nodes: z.array(z.string()).optional(),
  reason: z.string(),
  code: z.enum(REJECTION_CODES),
  params: RejectionParamsSchema,
  message: z.string(),
});

/**
 * Where one replica would land now. For an operator who may not list nodes (spec §8) the node,
 * its cards and the node counts are absent: whether it fits, and why not per group, remain.
 */
export const ReplicaPlacementSchema = z.discriminatedUnion('ok', [
  z.object({
    replica: z.number(),
    ok: z.literal(true),
    node: z.string().optional(),
    cards: z.record(z.string(), z.array(z.number())).optional(),
    /** How many nodes would take this replica now, the chosen one included. */
    fitting: z.number().optional(),
    /** Why the other nodes would not ("why not the others"), per node group and reason. */
    rejections: z.array(RejectionSchema),
  }),
  z.object({
    replica: z.number(),
    ok: z.literal(false),
    totalNodes: z.number().optional(),
    rejections: z.array(RejectionSchema),
    message: z.string(),
  }),
]);

/**
 * A request as spec §7 sends it to the BFF: the workload request itself, optionally with the
 * message language and a client request id beside its fields. The form sends the same values
 * wrapped as `{ request, lang, clientRequestId }`; both shapes are accepted and normalised.
 */
/** The bare shape of spec §7 turned into the wrapped one before validation, so issues keep their paths. */
const wrapBare = (input: unknown): unknown => {
  if (typeof input !== 'object' || input === null || 'request' in input) return input;
  const { lang, clientRequestId, ...request } = input as Record<string, unknown>;
  return { request, lang, clientRequestId };
};

export const CreateInputSchema = z.preprocess(
  wrapBare,
  z.object({
    request: WorkloadRequestSchema,
    /** Set once per form submission; a retry with the same id never makes a second Deployment. */
    clientRequestId: z.string().min(1).max(128).optional(),
    lang: LangSchema.default('zh-CN'),
  }),
);

export const PreviewResultSchema = CheckResultSchema.extend({
  placement: z.object({
    cardPolicy: z.enum(['binpack', 'spread']),
    replicas: z.array(ReplicaPlacementSchema),
    /** True when node names, cards and node counts were left out: the operator may not list nodes. */
    nodesWithheld: z.boolean().optional(),
  }),
});

/**
 * A Deployment by namespace and name, in the shapes Kubernetes allows (a DNS label, a DNS
 * subdomain): anything else could never name one, and would not even fit in a URL path.
 */
export const WorkloadRefSchema = z.object({
  namespace: z
    .string()
    .min(1)
    .refine(isDns1123Label, 'A namespace is a DNS label (a-z, 0-9, -; at most 63).'),
  name: z
    .string()
    .min(1)
    .refine(isDns1123Subdomain, 'A Deployment name is a DNS subdomain (a-z, 0-9, -, .).'),
});

export const PreviewInputSchema = z.preprocess(
  wrapBare,
  z.object({
    request: WorkloadRequestSchema,
    lang: LangSchema.default('zh-CN'),
    clientRequestId: z.string().optional(),
    /**
     * The edit form's live object: the placement counts the pods its rolling update replaces
     * as freed (all of a StatefulSet's or a Recreate Deployment's; a RollingUpdate Deployment's
     * beyond its maxSurge, which must fit beside the old ones).
     */
    replacing: WorkloadRefSchema.optional(),
  }),
);

/**
 * `workload.delete`: only workloads labelled as made by the console (spec §8) unless `force`
 * says the operator confirmed deleting someone else's.
 */
export const DeleteInputSchema = WorkloadRefSchema.extend({
  kind: z.enum(CREATABLE_KINDS).optional(),
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const CreateResultSchema = WorkloadRefSchema.extend({
  uid: z.string(),
  /** False when this was a retry and the Deployment already existed from the same request. */
  created: z.boolean(),
  clientRequestId: z.string().nullable(),
  /** The object as the API server stored it (named `deployment` since §7; any kind of §8). */
  deployment: z.record(z.string(), z.unknown()),
  kind: z.enum(CREATABLE_KINDS),
});

/** The longest resourceVersion an edit may send back. */
export const MAX_RESOURCE_VERSION = 128;

/**
 * A workload by namespace and name, optionally with its kind; without one the console looks
 * for a Deployment, then a StatefulSet, then a Job of that name (the order of `CREATABLE_KINDS`).
 */
export const WorkloadLookupSchema = WorkloadRefSchema.extend({
  kind: z.enum(CREATABLE_KINDS).optional(),
});

/**
 * `workload.update` (spec §8): the request the form edits, written onto the live object whose
 * `resourceVersion` the form read. A stale one is refused with rule `conflict` (409).
 */
export const UpdateInputSchema = WorkloadRefSchema.extend({
  // etcd's are decimal revisions (≤ 20 digits): opaque, yet never this long.
  resourceVersion: z.string().min(1).max(MAX_RESOURCE_VERSION),
  request: WorkloadRequestSchema,
  /** The operator confirmed changing a workload the console did not make (rule `not-managed`). */
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const RequestChangeSchema = z.object({
  path: z.string(),
  before: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  after: z.union([z.string(), z.number(), z.boolean(), z.null()]),
});

export const UpdateResultSchema = WorkloadRefSchema.extend({
  kind: z.enum(CREATABLE_KINDS),
  uid: z.string(),
  /** The object's new version: the next edit sends this one. */
  resourceVersion: z.string(),
  /** The form's fields that changed (empty: the object was already so, nothing was written). */
  changes: z.array(RequestChangeSchema),
});

/**
 * `workload.scale` (spec §8): a Deployment's or StatefulSet's replicas, a Job's parallelism
 * (its pods at once; its completions cannot change).
 */
export const ScaleInputSchema = WorkloadLookupSchema.extend({
  replicas: z.number().int().min(0).max(MAX_REPLICAS),
  /** As `workload.update`'s: a workload the console did not make is scaled only with it. */
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const ScaleResultSchema = WorkloadRefSchema.extend({
  kind: z.enum(CREATABLE_KINDS),
  replicas: z.number(),
  resourceVersion: z.string(),
});

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

/**
 * `workload.watch`: the operator's workloads as `workload.list` has them, live. `snapshot`
 * replaces the subscriber's list; `upsert` adds or replaces workloads by kind, namespace and
 * name; `delete` removes them.
 */
export const WorkloadListEventSchema = z.object({
  type: z.enum(['snapshot', 'upsert', 'delete']),
  workloads: z.array(WorkloadSummarySchema),
  /** A large snapshot comes in parts (`SnapshotPartSchema`). */
  ...SnapshotPartSchema.shape,
});

export const WorkloadWatchInputSchema = z
  .object({ namespace: z.string().optional(), lastEventId: z.string().nullish() })
  .optional();

/**
 * One workload as the console shows it: the request read back, its status, and only the labels
 * and annotations the console itself sets. Never the whole object: a Deployment's env values,
 * volumes and the rest of its spec may hold secrets the console has no reason to pass on.
 */
export const WorkloadDetailSchema = WorkloadSummarySchema.extend({
  request: WorkloadRequestSchema,
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  /**
   * The pod template's fields the request cannot express (paths, never values): `kept` ones an
   * update leaves as they are; any other makes the edit form read-only, saying why.
   */
  unexpressed: z
    .array(
      z.object({
        path: z.string(),
        reason: z.enum([...KEPT_UNEXPRESSED, ...LOST_UNEXPRESSED]),
        kept: z.boolean(),
      }),
    )
    .default([]),
  /**
   * The live object cut to the fields the form manages (`managedFieldsOf`): what the edit form
   * diffs as YAML against the edited object before applying.
   */
  manifest: z.record(z.string(), z.unknown()).optional(),
  /** The node label the GPU model is pinned with (`--model-label`), for that diff's edited side. */
  modelLabel: z.string().optional(),
});

export const PoolSummarySchema = z.object({
  /** `<model>/<policy>` for mGPU pools, `<model>/nvidia` for whole-card pools. */
  pool: z.string(),
  model: z.string(),
  resourceType: z.enum(['mgpu', 'nvidia']),
  policy: z.string(),
  nodes: z.number(),
  cards: z.number(),
  memoryMiBPerCard: z.number(),
  cardsPerNode: z.number(),
  compute: z.object({ allocatable: z.number(), allocated: z.number() }),
  memoryMiB: z.object({ allocatable: z.number(), allocated: z.number() }),
  cardsPartlyUsed: z.number(),
  cardsIdle: z.number(),
  /** Free capacity no request can use right now (see capacity.ts). */
  stranded: z.object({ computePercent: z.number(), memoryMiB: z.number(), cards: z.number() }),
  /** The largest request each dimension still allows on one node of the pool. */
  largestFit: z.object({
    computePercent: z.number(),
    memoryMiB: z.number(),
    idleCards: z.number(),
    cards: z.number(),
  }),
});

/** Who holds an instance on a card, and their claim on it. */
export const CardHolderSchema = z.object({
  recordId: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  workload: z.string().nullable(),
  ...CardClaimSchema.shape,
});

export const NodeViewSchema = z.object({
  name: z.string(),
  pool: z.string(),
  model: z.string().nullable(),
  policy: z.string(),
  resourceType: z.enum(['mgpu', 'nvidia']).nullable(),
  schedulable: z.boolean(),
  memoryMiBPerCard: z.number(),
  cards: z.array(
    z.object({
      index: z.number(),
      usedCompute: z.number(),
      usedMemoryMiB: z.number(),
      instances: z.number(),
      wholeNvidia: z.boolean(),
      stranded: z.object({ computePercent: z.number(), memoryMiB: z.number() }),
      holders: z.array(CardHolderSchema),
    }),
  ),
});

/**
 * A GPU node's shape without its usage (`cluster.layout`): what a live view draws the node's
 * cards from, its usage coming from `allocations.watch`. A quarter of `cluster.nodes`' bytes at
 * 10,000 nodes × 8 cards with 30,000 pods, no holders, and the same until nodes change.
 */
export const NodeLayoutSchema = NodeViewSchema.omit({ cards: true }).extend({
  cards: z.array(z.object({ index: z.number(), wholeNvidia: z.boolean() })),
});

export const ClusterSummarySchema = z.object({
  version: z.string(),
  source: z.string(),
  nodes: z.number(),
  pools: z.array(PoolSummarySchema),
});

/** `cluster.quotas`: one ResourceQuota's GPU resources, used / limit in the quota's units. */
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

export const QuotasInputSchema = z.object({ namespace: z.string().optional() }).optional();

export const GpuModelSchema = z.object({
  model: z.string(),
  memoryMiBPerCard: z.number(),
  cardsPerNode: z.number(),
  resourceTypes: z.array(z.enum(['mgpu', 'nvidia'])),
  policies: z.array(z.string()),
  /** The figures below are absent for an operator who may not list nodes (spec §8). */
  nodes: z.number().optional(),
  freeComputePercent: z.number().optional(),
  freeMemoryMiB: z.number().optional(),
  idleCards: z.number().optional(),
});

export const AllocationFilterSchema = z.object({
  namespace: z.string().optional(),
  workload: z.string().optional(),
  node: z.string().optional(),
  pod: z.string().optional(),
  /** Resume after this event id (tRPC passes the SSE `Last-Event-ID` here). */
  lastEventId: z.string().nullish(),
});

export const AllocationEventSchema = z.object({
  /**
   * `snapshot` replaces everything the subscriber had (a large one comes in parts: `part` and
   * `more`, see `SnapshotPartSchema`); `upsert`/`delete` change single records.
   */
  type: z.enum(['snapshot', 'upsert', 'delete']),
  records: z.array(AllocationRecordSchema),
  at: z.string(),
  ...SnapshotPartSchema.shape,
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
  outcome: z.enum(['in-progress', 'verified', 'failed', 'absent']),
  stages: z.array(ProgressStageSchema),
  replicas: z.object({ desired: z.number(), ready: z.number() }),
  pods: z.array(
    z.object({
      name: z.string(),
      node: z.string().nullable(),
      phase: z.string().nullable(),
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
});

/** One pool's figures at one sample of the history (issue 18): what the dashboard charts. */
export const PoolSampleSchema = z.object({
  pool: z.string(),
  computeAllocatedPercent: z.number(),
  computeAllocatablePercent: z.number(),
  memoryAllocatedMiB: z.number(),
  memoryAllocatableMiB: z.number(),
  strandedComputePercent: z.number(),
  strandedMemoryMiB: z.number(),
  largestFitComputePercent: z.number(),
  pendingPods: z.number(),
});

/**
 * `cluster.history`: per-pool figures sampled every `intervalMs`, the newest last, kept for
 * `retentionMs` in the BFF's memory. `startedAt` is when this BFF began sampling: a restart
 * empties the history (Prometheus, with `--metrics-port`, keeps the long one).
 */
export const ClusterHistorySchema = z.object({
  startedAt: z.string(),
  intervalMs: z.number(),
  retentionMs: z.number(),
  samples: z.array(z.object({ at: z.string(), pools: z.array(PoolSampleSchema) })),
});

export type PreviewResult = z.infer<typeof PreviewResultSchema>;
export type CreateResult = z.infer<typeof CreateResultSchema>;
export type WorkloadSummary = z.infer<typeof WorkloadSummarySchema>;
export type WorkloadListEvent = z.infer<typeof WorkloadListEventSchema>;
export type UpdateResult = z.infer<typeof UpdateResultSchema>;
export type ScaleResult = z.infer<typeof ScaleResultSchema>;
export type WorkloadVerification = (typeof WORKLOAD_VERIFICATIONS)[number];
export type WorkloadDetail = z.infer<typeof WorkloadDetailSchema>;
export type PoolSummary = z.infer<typeof PoolSummarySchema>;
export type NodeView = z.infer<typeof NodeViewSchema>;
export type NodeLayout = z.infer<typeof NodeLayoutSchema>;
export type ClusterSummary = z.infer<typeof ClusterSummarySchema>;
export type GpuModel = z.infer<typeof GpuModelSchema>;
export type QuotaUsage = z.infer<typeof QuotaUsageSchema>;
export type AllocationFilter = z.infer<typeof AllocationFilterSchema>;
export type AllocationEvent = z.infer<typeof AllocationEventSchema>;
export type WorkloadProgress = z.infer<typeof WorkloadProgressSchema>;
export type ProgressStage = z.infer<typeof ProgressStageSchema>;
export type WorkloadRolloutView = z.infer<typeof WorkloadRolloutSchema>;
export type PoolSample = z.infer<typeof PoolSampleSchema>;
export type ClusterHistory = z.infer<typeof ClusterHistorySchema>;
