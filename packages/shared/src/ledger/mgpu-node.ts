import { z } from 'zod';
import { CardTypeSchema } from './claim.js';

/**
 * The node agents' report resource: one cluster-scoped `MgpuNode` per GPU node, named after the
 * node, whose `status.cards[].instances[]` carry the node-side fields of spec §6 under their own
 * snake_case names. The embedded cluster serves it natively; a real cluster gets it as a CRD.
 * Node agents write it; the BFF reads it. A field a node does not report is absent, never guessed.
 */
export const MGPU_NODE_RESOURCE = {
  group: 'mgpu.console.io',
  version: 'v1alpha1',
  plural: 'mgpunodes',
  kind: 'MgpuNode',
} as const;

export const MGPU_NODE_API_VERSION = `${MGPU_NODE_RESOURCE.group}/${MGPU_NODE_RESOURCE.version}`;

/** One mGPU instance: one container on one card (`/dev/mgpu<card>inst<n>`), spec §6. */
export const MgpuInstanceReportSchema = z.looseObject({
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  /** Device file of the instance, e.g. `/dev/mgpu0inst1`. */
  device: z.string().optional(),
  container_id: z.string().optional(),
  /** The card (device) id; nodes report it as a number or a string, kept as reported. */
  device_id: z.union([z.string(), z.number()]).optional(),
  instance_id: z.union([z.string(), z.number()]).optional(),
  pod_uid: z.string().optional(),
  compute_priority: z.number().optional(),
  compute_qos_enable: z.boolean().optional(),
  /** Offline compute percent. */
  compute_weight: z.number().optional(),
  /** Compute percent under native-burst-share. */
  compute_weight_native_burst: z.number().optional(),
  /** Online compute percent. */
  compute_weight_online: z.number().optional(),
  minor: z.number().optional(),
  online: z.boolean().optional(),
  /** PIDs using the device. */
  tasks: z.array(z.number()).optional(),
  /** Memory in MiB: what is free on the instance and what each PID uses. */
  vmem_info: z
    .looseObject({
      free_mib: z.number(),
      used: z.array(z.looseObject({ pid: z.number(), used_mib: z.number() })),
    })
    .optional(),
  /** The container's memory limit on this card, MiB. */
  vmem_limit: z.number().optional(),
});
export type MgpuInstanceReport = z.infer<typeof MgpuInstanceReportSchema>;

export const MgpuCardReportSchema = z.looseObject({
  index: z.number(),
  /** `/dev/mgpu<index>`. */
  device: z.string().optional(),
  uuid: z.string().optional(),
  model: z.string().optional(),
  memoryMiB: z.number().optional(),
  /** Percent of the card's compute given to its instances. */
  allocatedCompute: z.number().optional(),
  allocatedMemoryMiB: z.number().optional(),
  /** Handed out whole as `nvidia.com/gpu` (no mGPU instances then). */
  wholeNvidia: z
    .looseObject({
      namespace: z.string(),
      pod: z.string(),
      container: z.string(),
      container_id: z.string().optional(),
    })
    .optional(),
  instances: z.array(MgpuInstanceReportSchema).default([]),
});
export type MgpuCardReport = z.infer<typeof MgpuCardReportSchema>;

export const MgpuNodeStatusSchema = z.looseObject({
  nodeName: z.string().optional(),
  resourceType: CardTypeSchema.optional(),
  model: z.string().optional(),
  /** The pool's compute policy, or `nvidia` for whole-card nodes. */
  policy: z.string().optional(),
  memoryMiBPerCard: z.number().optional(),
  cards: z.array(MgpuCardReportSchema).default([]),
  /** When the agent last wrote the report (RFC 3339). */
  updatedAt: z.string().optional(),
});
export type MgpuNodeStatus = z.infer<typeof MgpuNodeStatusSchema>;

export const MgpuNodeSpecSchema = z.looseObject({
  nodeName: z.string(),
  resourceType: CardTypeSchema.optional(),
  model: z.string().optional(),
  /** How many cards the node has. */
  cards: z.number().optional(),
});
export type MgpuNodeSpec = z.infer<typeof MgpuNodeSpecSchema>;

/**
 * The whole object as an informer holds it. The status stays unknown here: it is read on its
 * own (`readMgpuNodeStatus`), so a malformed report never hides the object.
 */
export const MgpuNodeSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z
    .looseObject({
      name: z.string().optional(),
      resourceVersion: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  spec: MgpuNodeSpecSchema.optional(),
  status: z.unknown().optional(),
});
export type MgpuNodeObject = z.infer<typeof MgpuNodeSchema>;

/** The named fields of a loose object's type, without its `[key: string]: unknown`. */
type Known<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/** One instance as a node agent writes it: every field present, card and instance as numbers. */
export type MgpuInstance = Required<Known<MgpuInstanceReport>> & {
  device_id: number;
  instance_id: number;
};

/** One card as a node agent writes it. */
export type MgpuCard = Required<Omit<Known<MgpuCardReport>, 'wholeNvidia' | 'instances'>> &
  Pick<Known<MgpuCardReport>, 'wholeNvidia'> & { instances: MgpuInstance[] };

/** A report as a node agent writes it: the schema's status with every field present. */
export type WrittenMgpuNodeStatus = Required<Omit<Known<MgpuNodeStatus>, 'cards'>> & {
  cards: MgpuCard[];
};

/** The `MgpuNode` a node agent creates and patches. */
export interface WrittenMgpuNode {
  apiVersion: typeof MGPU_NODE_API_VERSION;
  kind: typeof MGPU_NODE_RESOURCE.kind;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: Required<Known<MgpuNodeSpec>>;
  status?: WrittenMgpuNodeStatus;
}

/** Reads a report leniently: a malformed or missing status is no report at all. */
export function readMgpuNodeStatus(object: MgpuNodeObject): MgpuNodeStatus | undefined {
  const parsed = MgpuNodeStatusSchema.safeParse(object.status);
  return parsed.success ? parsed.data : undefined;
}
