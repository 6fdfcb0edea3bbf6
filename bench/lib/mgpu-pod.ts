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
 * The scheduling benchmarks' mix of slices and the seed's multi-card pod: 10,000 of them take
 * about half the compute of 1,000 nodes × 8 cards.
 */
const LOAD_SHAPES: readonly (MgpuShape & { weight: number })[] = [
  { weight: 4, policy: 'native-burst-share', core: 30, memoryMiB: 6144, cards: 1 },
  { weight: 3, policy: 'native-burst-share', core: 50, memoryMiB: 10240, cards: 1 },
  { weight: 2, policy: 'native-burst-share', core: 120, memoryMiB: 8192, cards: 2 },
  { weight: 1, policy: 'native-burst-share', core: 10, memoryMiB: 2048, cards: 1 },
];
const LOAD_WEIGHTS = LOAD_SHAPES.reduce((sum, shape) => sum + shape.weight, 0);

/** The shape of the index-th pod of the mix, round-robin by weight. */
export function loadShapeOf(index: number): MgpuShape {
  const slot = index % LOAD_WEIGHTS;
  let seen = 0;
  for (const shape of LOAD_SHAPES) {
    seen += shape.weight;
    if (slot < seen) return shape;
  }
  throw new Error('unreachable: the weights cover every slot');
}

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
