import {
  type AllocationEvent,
  type AllocationRecord,
  type NodeLayout,
  type PodLike,
  podAllocationRecords,
  snapshotParts,
} from '@mgpu/shared';
import type { DashboardFilters } from './dashboard-filters.js';

/** Test data for the allocation dashboard's reducers and selectors (not used by the app). */
export const NO_FILTER: DashboardFilters = {
  model: '',
  policy: '',
  node: '',
  namespace: '',
  workload: '',
  search: '',
};

export const layoutNode = (name: string, model: string, policy: string, cards = 4): NodeLayout => ({
  name,
  pool: `${model}/${policy}`,
  model,
  policy,
  resourceType: 'mgpu',
  schedulable: true,
  memoryMiBPerCard: 46068,
  cards: Array.from({ length: cards }, (_, index) => ({ index, wholeNvidia: false })),
});

export const CLUSTER: NodeLayout[] = [
  layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share'),
  layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8),
];

/** A Deployment `workload`'s pod as the scheduler leaves it: the seed's 1.2 compute on cards 1 and 3, 8 GiB. */
export function seedPod(workload: string, { namespace = 'default', node = 'l20-1' } = {}): PodLike {
  return {
    metadata: {
      name: `${workload}-7d9c-abcde`,
      namespace,
      labels: { 'pod-template-hash': '7d9c' },
      ownerReferences: [{ kind: 'ReplicaSet', name: `${workload}-7d9c` }],
      annotations: {
        'vke.volcengine.com/multiple-mgpu-worker': '2',
        'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
        'vke.volcengine.com/gpu-index-container-worker': '1,3',
      },
    },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'worker',
          image: 'nginx',
          resources: {
            limits: {
              'vke.volcengine.com/mgpu-core': '120',
              'vke.volcengine.com/mgpu-memory': '8192',
            },
          },
        },
      ],
    },
    status: { phase: 'Running' },
  };
}

/** The records of `seedPod`: 60 % of cards 1 and 3. */
export const podRecords = (
  workload: string,
  where: { namespace?: string; node?: string } = {},
): AllocationRecord[] => podAllocationRecords(seedPod(workload, where), undefined);

const at = '2025-01-01T00:00:00.000Z';

export const upsert = (records: AllocationRecord[]): AllocationEvent => ({
  type: 'upsert',
  records,
  at,
});
export const remove = (records: AllocationRecord[]): AllocationEvent => ({
  type: 'delete',
  records,
  at,
});
export const snapshot = (records: AllocationRecord[]): AllocationEvent => ({
  type: 'snapshot',
  records,
  at,
});

/** A snapshot cut into parts of `size` records, as the BFF sends a large one. */
export const snapshotInParts = (records: AllocationRecord[], size: number): AllocationEvent[] =>
  snapshotParts(records, size).map(({ fields, items }) => ({
    type: 'snapshot',
    ...fields,
    records: items,
    at,
  }));
