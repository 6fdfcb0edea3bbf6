import type { WorkloadRequestInput } from './request.js';

type GpuRequestInput = NonNullable<WorkloadRequestInput['containers'][number]['gpu']>;

/** The seed's GPU ask (spec §3/§6): compute 1.2 on 2 cards, 8 GiB → 60 % and 4096 MiB a card. */
export const SEED_GPU = {
  type: 'mgpu',
  multiCard: true,
  compute: '1.2',
  memoryGiB: '8',
  cards: 2,
} as const satisfies GpuRequestInput;

const SEED_CONTAINER = { name: 'worker', image: 'nginx:1.27' } as const;

/** The workload request of spec §7, which is the seed's example (on an NVIDIA-L20). */
export const SEED_REQUEST = {
  name: 'demo',
  namespace: 'default',
  replicas: 1,
  computePolicy: 'native-burst-share',
  containers: [{ ...SEED_CONTAINER, gpu: { ...SEED_GPU, model: 'NVIDIA-L20' } }],
} as const satisfies WorkloadRequestInput;

/**
 * The seed's example as tests create it: named `name`, on any GPU model (the default topology's
 * native-burst-share pool has room for it), with `overrides` and another GPU ask in its place.
 */
export function seedRequest(
  name: string,
  overrides: Partial<WorkloadRequestInput> = {},
  gpu: GpuRequestInput = SEED_GPU,
): WorkloadRequestInput {
  return { ...SEED_REQUEST, name, containers: [{ ...SEED_CONTAINER, gpu }], ...overrides };
}
