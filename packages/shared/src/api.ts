import { z } from 'zod';
import { AllocationRecordSchema } from './allocations.js';
import { isDns1123Label, isDns1123Subdomain } from './kubernetes-names.js';
import { REJECTION_CODES, type RejectionParams } from './placement/rejections.js';
import { WorkloadRequestSchema } from './request.js';
import { LANGS } from './rules.js';

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
  perCard: z.object({ computePercent: z.number(), memoryMiB: z.number().nullable() }),
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
  model: z.string().optional(),
});

export const CheckResultSchema = z.object({
  valid: z.boolean(),
  errors: z.array(RuleErrorSchema),
  containers: z.array(ContainerShareSchema),
  manifest: z.record(z.string(), z.unknown()).optional(),
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
  nodes: z.array(z.string()),
  reason: z.string(),
  code: z.enum(REJECTION_CODES),
  params: RejectionParamsSchema,
  message: z.string(),
});

export const ReplicaPlacementSchema = z.discriminatedUnion('ok', [
  z.object({
    replica: z.number(),
    ok: z.literal(true),
    node: z.string(),
    cards: z.record(z.string(), z.array(z.number())),
    /** How many nodes would take this replica now, the chosen one included. */
    fitting: z.number(),
    /** Why the other nodes would not ("why not the others"), per node group and reason. */
    rejections: z.array(RejectionSchema),
  }),
  z.object({
    replica: z.number(),
    ok: z.literal(false),
    totalNodes: z.number(),
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

export const PreviewInputSchema = z.preprocess(
  wrapBare,
  z.object({
    request: WorkloadRequestSchema,
    lang: LangSchema.default('zh-CN'),
    clientRequestId: z.string().optional(),
  }),
);

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

/**
 * `workload.delete`: only Deployments labelled as made by the console (spec §8) unless `force`
 * says the operator confirmed deleting someone else's.
 */
export const DeleteInputSchema = WorkloadRefSchema.extend({
  force: z.boolean().default(false),
  lang: LangSchema.default('zh-CN'),
});

export const CreateResultSchema = WorkloadRefSchema.extend({
  uid: z.string(),
  /** False when this was a retry and the Deployment already existed from the same request. */
  created: z.boolean(),
  clientRequestId: z.string().nullable(),
  /** The Deployment as the API server stored it. */
  deployment: z.record(z.string(), z.unknown()),
});

export const WorkloadSummarySchema = WorkloadRefSchema.extend({
  uid: z.string(),
  createdAt: z.string().nullable(),
  replicas: z.number(),
  readyReplicas: z.number(),
  availableReplicas: z.number(),
  managedByConsole: z.boolean(),
  computePolicy: z.string().nullable(),
  containers: z.array(ContainerShareSchema),
});

/**
 * One workload as the console shows it: the request read back, its status, and only the labels
 * and annotations the console itself sets. Never the whole object: a Deployment's env values,
 * volumes and the rest of its spec may hold secrets the console has no reason to pass on.
 */
export const WorkloadDetailSchema = WorkloadSummarySchema.extend({
  request: WorkloadRequestSchema,
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
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

export const CardHolderSchema = z.object({
  recordId: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  workload: z.string().nullable(),
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
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

export const ClusterSummarySchema = z.object({
  version: z.string(),
  source: z.string(),
  nodes: z.number(),
  pools: z.array(PoolSummarySchema),
});

export const GpuModelSchema = z.object({
  model: z.string(),
  memoryMiBPerCard: z.number(),
  cardsPerNode: z.number(),
  resourceTypes: z.array(z.enum(['mgpu', 'nvidia'])),
  policies: z.array(z.string()),
  nodes: z.number(),
  freeComputePercent: z.number(),
  freeMemoryMiB: z.number(),
  idleCards: z.number(),
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
  /** `snapshot` replaces everything the subscriber had; `upsert`/`delete` change single records. */
  type: z.enum(['snapshot', 'upsert', 'delete']),
  records: z.array(AllocationRecordSchema),
  at: z.string(),
});

export const PROGRESS_STAGES = ['created', 'scheduled', 'running', 'verified'] as const;

export const ProgressStageSchema = z.object({
  stage: z.enum(PROGRESS_STAGES),
  state: z.enum(['done', 'pending', 'failed']),
  detail: z.string().nullable(),
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
});

export type PreviewResult = z.infer<typeof PreviewResultSchema>;
export type CreateResult = z.infer<typeof CreateResultSchema>;
export type WorkloadSummary = z.infer<typeof WorkloadSummarySchema>;
export type WorkloadDetail = z.infer<typeof WorkloadDetailSchema>;
export type PoolSummary = z.infer<typeof PoolSummarySchema>;
export type NodeView = z.infer<typeof NodeViewSchema>;
export type ClusterSummary = z.infer<typeof ClusterSummarySchema>;
export type GpuModel = z.infer<typeof GpuModelSchema>;
export type AllocationFilter = z.infer<typeof AllocationFilterSchema>;
export type AllocationEvent = z.infer<typeof AllocationEventSchema>;
export type WorkloadProgress = z.infer<typeof WorkloadProgressSchema>;
export type ProgressStage = z.infer<typeof ProgressStageSchema>;
