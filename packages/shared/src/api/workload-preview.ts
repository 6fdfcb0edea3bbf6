import { z } from 'zod';
import { CARD_POLICIES } from '../placement/types.js';
import { WorkloadRequestSchema } from '../request.js';
import { RequestVerdictSchema } from '../verdict.js';
import { wrapBare } from './bare-request.js';
import {
  ContainerShareSchema,
  LangSchema,
  RejectionSchema,
  RuleErrorSchema,
  WorkloadRefSchema,
} from './building-blocks.js';

/** `workload.preview`: the rules' verdict on a request, its manifest and where it would land. */

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

export const CheckResultSchema = z.object({
  valid: z.boolean(),
  errors: z.array(RuleErrorSchema),
  containers: z.array(ContainerShareSchema),
  manifest: z.record(z.string(), z.unknown()).optional(),
  /** The node label the GPU model is pinned with (`--model-label`), for that diff's edited side. */
  modelLabel: z.string().optional(),
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

export const PreviewResultSchema = CheckResultSchema.extend({
  placement: z.object({
    cardPolicy: z.enum(CARD_POLICIES),
    replicas: z.array(ReplicaPlacementSchema),
    /** True when node names, cards and node counts were left out: the operator may not list nodes. */
    nodesWithheld: z.boolean().optional(),
  }),
  /** Invalid, placeable now, or valid but waiting: the one verdict every client says (`requestVerdict`). */
  verdict: RequestVerdictSchema,
});

export type PreviewResult = z.infer<typeof PreviewResultSchema>;
