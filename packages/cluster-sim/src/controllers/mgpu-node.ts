/**
 * The node agents' report: one cluster-scoped `MgpuNode` per GPU node (group
 * `mgpu.console.io/v1alpha1`), whose status lists every card and every mGPU instance on it with
 * the node-side fields of spec §6 under their own snake_case names.
 */
export const MGPU_NODE = {
  group: 'mgpu.console.io',
  version: 'v1alpha1',
  kind: 'MgpuNode',
  plural: 'mgpunodes',
} as const;

export const MGPU_NODE_API_VERSION = `${MGPU_NODE.group}/${MGPU_NODE.version}`;

/** One container on one card (device `/dev/mgpu<card>inst<n>`), as the node reports it (spec §6). */
export interface MgpuInstance {
  namespace: string;
  pod: string;
  container: string;
  /** `/dev/mgpu<card>inst<n>`. */
  device: string;
  container_id: string;
  /** The card (device) the instance lives on. */
  device_id: number;
  /** The instance's number on its card (the `<n>` of the device path). */
  instance_id: number;
  /** Usually empty on real nodes (spec §6). */
  pod_uid: string;
  compute_priority: number;
  compute_qos_enable: boolean;
  /** Offline compute percent. */
  compute_weight: number;
  /** Compute percent under native-burst-share; 0 under the other policies. */
  compute_weight_native_burst: number;
  /** Online compute percent. */
  compute_weight_online: number;
  /** Minor number of the device. */
  minor: number;
  online: boolean;
  /** PIDs using the device; the simulator runs no CUDA processes, so none. */
  tasks: number[];
  vmem_info: { free_mib: number; used: { pid: number; used_mib: number }[] };
  /** The container's memory limit on this card, MiB. */
  vmem_limit: number;
}

export interface MgpuCard {
  index: number;
  /** `/dev/mgpu<index>`. */
  device: string;
  uuid: string;
  model: string;
  memoryMiB: number;
  /** Percent of the card's compute given to its instances. */
  allocatedCompute: number;
  allocatedMemoryMiB: number;
  /** Handed out whole as `nvidia.com/gpu` (no mGPU instances then). */
  wholeNvidia?: { namespace: string; pod: string; container: string; container_id: string };
  instances: MgpuInstance[];
}

export interface MgpuNodeStatus {
  nodeName: string;
  resourceType: 'mgpu' | 'nvidia';
  model: string;
  policy: string;
  memoryMiBPerCard: number;
  cards: MgpuCard[];
  /** ISO time of the last change. */
  updatedAt: string;
}

export interface MgpuNodeObject {
  apiVersion: typeof MGPU_NODE_API_VERSION;
  kind: typeof MGPU_NODE.kind;
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { nodeName: string; resourceType: 'mgpu' | 'nvidia'; model: string; cards: number };
  status?: MgpuNodeStatus;
}
