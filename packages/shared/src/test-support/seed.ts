import type { WorkloadRequestInput } from '../request.js';

/** The workload request of spec §7, which is the seed's example (1.2 compute on 2 cards, 8 GiB). */
export const SEED_REQUEST = {
  name: 'demo',
  namespace: 'default',
  replicas: 1,
  computePolicy: 'native-burst-share',
  containers: [
    {
      name: 'worker',
      image: 'nginx:1.27',
      gpu: {
        type: 'mgpu',
        multiCard: true,
        compute: '1.2',
        memoryGiB: '8',
        cards: 2,
        model: 'NVIDIA-L20',
      },
    },
  ],
} as const satisfies WorkloadRequestInput;
