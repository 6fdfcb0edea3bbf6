/** The annotation, label and resource names of VKE's mGPU (spec §4, §5). */
export const VKE = {
  /** Pod annotation prefix: `vke.volcengine.com/multiple-mgpu-<container>: "<cards>"`. */
  multiCardAnnotationPrefix: 'vke.volcengine.com/multiple-mgpu-',
  /** Older clusters: one positional annotation, a card count per container in spec order. */
  positionalMultiCardAnnotation: 'vke.volcengine.com/container-multiple-gpu',
  computePolicyAnnotation: 'vke.volcengine.com/mgpu-compute-policy',
  /** Written by the scheduler once it has chosen the cards. */
  assumedAnnotation: 'vke.volcengine.com/assumed',
  /** Scheduler's card choice per container: `vke.volcengine.com/gpu-index-container-<name>: "1,0"`. */
  gpuIndexAnnotationPrefix: 'vke.volcengine.com/gpu-index-container-',
  coreResource: 'vke.volcengine.com/mgpu-core',
  memoryResource: 'vke.volcengine.com/mgpu-memory',
  nvidiaResource: 'nvidia.com/gpu',
  /** Node label: `mgpu` or `nvidia`. */
  scheduleLabel: 'vke.node.gpu.schedule',
  /** Node label of the pool's compute policy; absent means fixed-share. */
  computePolicyLabel: 'vke.volcengine.com/mgpu-compute-policy',
  /** Node label of the GPU model (configurable per cluster). */
  defaultModelLabel: 'machine.cluster.vke.volcengine.com/gpu-name',
} as const;

/** At most this many mGPU instances share one card (the public scheduler's limit). */
export const MAX_INSTANCES_PER_CARD = 16;

/** The pod annotation that carries a multi-card container's card count (spec §4). */
export const multiCardAnnotation = (container: string) =>
  `${VKE.multiCardAnnotationPrefix}${container}`;
/** The pod annotation the scheduler writes with a GPU container's card indexes (spec §5). */
export const gpuIndexAnnotation = (container: string) =>
  `${VKE.gpuIndexAnnotationPrefix}${container}`;
