import { z } from 'zod';

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
  memoryMiB: z.number().optional(),
  instances: z.array(MgpuInstanceReportSchema).default([]),
});
export type MgpuCardReport = z.infer<typeof MgpuCardReportSchema>;

export const MgpuNodeStatusSchema = z.looseObject({
  cards: z.array(MgpuCardReportSchema).default([]),
  /** When the agent last wrote the report (RFC 3339). */
  updatedAt: z.string().optional(),
});
export type MgpuNodeStatus = z.infer<typeof MgpuNodeStatusSchema>;

export interface MgpuNodeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; resourceVersion?: string; [key: string]: unknown };
  status?: unknown;
}

/** Reads a report leniently: a malformed or missing status is no report at all. */
export function readMgpuNodeStatus(object: MgpuNodeObject): MgpuNodeStatus | undefined {
  const parsed = MgpuNodeStatusSchema.safeParse(object.status);
  return parsed.success ? parsed.data : undefined;
}
