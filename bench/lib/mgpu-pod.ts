import { multiCardAnnotation, VKE } from '@mgpu/shared';

/** One container's mGPU ask, as a pod of the benchmarks' churn carries it. */
export interface MgpuShape {
  policy: string;
  /** mgpu-core: percent of one card, summed over the cards (120 = 1.2 cards). */
  core: number;
  memoryMiB: number;
  cards: number;
}

/** Pod shapes: slices of each policy, and the seed's multi-card pod (native-burst-share only). */
export const CHURN_SHAPES: readonly MgpuShape[] = [
  { policy: 'native-burst-share', core: 30, memoryMiB: 6144, cards: 1 },
  { policy: 'fixed-share', core: 50, memoryMiB: 10240, cards: 1 },
  { policy: 'native-burst-share', core: 120, memoryMiB: 8192, cards: 2 },
  { policy: 'guaranteed-burst-share', core: 20, memoryMiB: 4096, cards: 1 },
  { policy: 'fixed-share', core: 10, memoryMiB: 2048, cards: 1 },
];

/**
 * A bare pod with one mGPU container named `main` (no Deployment): what the benchmarks create to
 * drive the scheduler and the allocation stream.
 */
export function mgpuPod(name: string, namespace: string, app: string, shape: MgpuShape) {
  const resources = {
    [VKE.coreResource]: String(shape.core),
    [VKE.memoryResource]: String(shape.memoryMiB),
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app },
      annotations: {
        [VKE.computePolicyAnnotation]: shape.policy,
        ...(shape.cards > 1 ? { [multiCardAnnotation('main')]: String(shape.cards) } : {}),
      },
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'nginx:1.27',
          resources: { requests: resources, limits: resources },
        },
      ],
    },
  };
}
