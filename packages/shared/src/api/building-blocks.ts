import { z } from 'zod';
import { isDns1123Label, isDns1123Subdomain } from '../kubernetes-names.js';
import { CardClaimSchema, CardTypeSchema } from '../ledger/claim.js';
import { REJECTION_CODES, type RejectionParams } from '../placement/rejections.js';
import { CreatableKindSchema } from '../request.js';
import { LANGS } from '../rules.js';

/**
 * The pieces several procedures' schemas are made of (spec §7); each procedure's own input and
 * output sit in the file named after it.
 */

export const LangSchema = z.enum(LANGS);

/** A procedure that takes no parameters: an empty object, or nothing. */
export const NoInputSchema = z.object({}).optional();

/** What a watched list's event does: replace the list, add or replace items, remove them. */
export const ListEventTypeSchema = z.enum(['snapshot', 'upsert', 'delete']);

export const RuleErrorSchema = z.object({
  path: z.string(),
  rule: z.string(),
  message: z.string(),
  fix: z.string().optional(),
  /** The fix as field changes the form applies with one click (`fixes.ts`). */
  fixes: z
    .array(
      z.object({
        changes: z.array(
          z.object({ path: z.string(), value: z.union([z.string(), z.number(), z.boolean()]) }),
        ),
      }),
    )
    .optional(),
});

export const ContainerShareSchema = z.object({
  index: z.number(),
  name: z.string(),
  type: CardTypeSchema,
  multiCard: z.boolean(),
  wholeCards: z.boolean(),
  cards: z.number(),
  perCard: CardClaimSchema,
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
  model: z.string().optional(),
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
    freeComputePercent: z.number(),
    freeMemoryMiB: z.number(),
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
 * A workload by namespace and name, optionally with its kind; without one the console looks
 * for a Deployment, then a StatefulSet, then a Job of that name (the order of `CREATABLE_KINDS`).
 * `workload.get`'s input.
 */
export const WorkloadLookupSchema = WorkloadRefSchema.extend({
  kind: CreatableKindSchema.optional(),
});
