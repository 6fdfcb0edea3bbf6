import { z } from 'zod';
import { CARD_TYPES } from './ledger/claim.js';

/** The three mGPU compute policies (算力分配策略) a pod or a node pool can carry. */
export const COMPUTE_POLICIES = [
  'native-burst-share',
  'fixed-share',
  'guaranteed-burst-share',
] as const;
export const ComputePolicySchema = z.enum(COMPUTE_POLICIES);
export type ComputePolicy = z.infer<typeof ComputePolicySchema>;

/** A node without the policy label belongs to a `fixed-share` pool (spec §5). */
export const DEFAULT_NODE_POLICY: ComputePolicy = 'fixed-share';

/** A container's GPU in a request: a card type, or none. */
export const GPU_TYPES = [...CARD_TYPES, 'none'] as const;
export type GpuType = (typeof GPU_TYPES)[number];

export const MAX_CARDS = 8;

/**
 * The kinds the console creates and edits (spec §8 `kind`). Absent means `Deployment`
 * (`workloadKindOf`), so a request of §7 without the field keeps its meaning.
 */
export const CREATABLE_KINDS = ['Deployment', 'StatefulSet', 'Job'] as const;
export const CreatableKindSchema = z.enum(CREATABLE_KINDS);
export type CreatableKind = z.infer<typeof CreatableKindSchema>;

/**
 * Compute and memory are kept as the operator typed them: the rules judge the text exactly
 * (a JSON number is accepted and turned back into its shortest decimal text).
 */
/** JSON `null` means the same as an absent field (spec §7: "empty or absent"). */
const nullAsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());

const typedDecimal = nullAsAbsent(
  z.union([z.string(), z.number().transform((value) => String(value))]),
).describe('a decimal number as typed; empty, null or absent means the field is empty');

const typedInteger = nullAsAbsent(z.union([z.number(), z.string()])).describe(
  'an integer as typed; the rules say what range is allowed',
);

const optionalText = nullAsAbsent(z.string());

export const GpuRequestSchema = z.object({
  type: z.enum(GPU_TYPES).default('mgpu'),
  multiCard: z.boolean().default(false),
  compute: typedDecimal,
  memoryGiB: typedDecimal,
  cards: typedInteger,
  model: optionalText,
});
export type GpuRequest = z.output<typeof GpuRequestSchema>;

export const ContainerRequestSchema = z.object({
  name: z.string(),
  image: z.string().default(''),
  gpu: GpuRequestSchema.optional(),
});
export type ContainerRequest = z.output<typeof ContainerRequestSchema>;

export const WorkloadRequestSchema = z.object({
  kind: nullAsAbsent(CreatableKindSchema),
  name: z.string(),
  namespace: z.string().default('default'),
  replicas: z.number().default(1),
  computePolicy: optionalText,
  containers: z.array(ContainerRequestSchema),
});
/** A workload request after defaults: what the rules, the manifest builder and the BFF take. */
export type WorkloadRequest = z.output<typeof WorkloadRequestSchema>;
/** A workload request as written (defaults not yet applied): what the form edits. */
export type WorkloadRequestInput = z.input<typeof WorkloadRequestSchema>;

/** What a new form starts with: one mGPU container, multi-card sharing off (spec §7). */
export function newWorkloadRequest(): WorkloadRequest {
  return {
    name: '',
    namespace: 'default',
    replicas: 1,
    containers: [{ name: 'main', image: '', gpu: { type: 'mgpu', multiCard: false } }],
  };
}

export function isComputePolicy(value: string): value is ComputePolicy {
  return (COMPUTE_POLICIES as readonly string[]).includes(value);
}

/** The kind a request makes: `Deployment` when the request does not say (spec §8). */
export const workloadKindOf = (request: { kind?: CreatableKind | undefined }): CreatableKind =>
  request.kind ?? 'Deployment';

export function isCreatableKind(value: unknown): value is CreatableKind {
  return typeof value === 'string' && (CREATABLE_KINDS as readonly string[]).includes(value);
}
