import { describe, expect, it } from 'vitest';
import { readMgpuNodeStatus, type WrittenMgpuNodeStatus } from './mgpu-node.js';

/** One card with the seed's 60 % instance, as the embedded cluster's node agent writes it. */
const written: WrittenMgpuNodeStatus = {
  nodeName: 'l20-1',
  resourceType: 'mgpu',
  model: 'NVIDIA-L20',
  policy: 'native-burst-share',
  memoryMiBPerCard: 46068,
  updatedAt: '2026-01-01T00:00:00.000Z',
  cards: [
    {
      index: 1,
      device: '/dev/mgpu1',
      uuid: 'GPU-1',
      model: 'NVIDIA-L20',
      memoryMiB: 46068,
      allocatedCompute: 60,
      allocatedMemoryMiB: 4096,
      instances: [
        {
          namespace: 'default',
          pod: 'demo',
          container: 'worker',
          device: '/dev/mgpu1inst0',
          container_id: 'containerd://abc',
          device_id: 1,
          instance_id: 0,
          pod_uid: '',
          compute_priority: 0,
          compute_qos_enable: false,
          compute_weight: 60,
          compute_weight_native_burst: 60,
          compute_weight_online: 60,
          minor: 16,
          online: true,
          tasks: [],
          vmem_info: { free_mib: 4096, used: [] },
          vmem_limit: 4096,
        },
      ],
    },
  ],
};

describe('the one MgpuNode schema', () => {
  it('reads back every field a node agent writes', () => {
    expect(readMgpuNodeStatus({ status: written })).toEqual(written);
  });

  it('reads a sparse report from a real node, and a malformed one as no report', () => {
    expect(
      readMgpuNodeStatus({
        status: {
          cards: [
            {
              index: 0,
              instances: [{ namespace: 'a', pod: 'b', container: 'c', device_id: 'GPU-0' }],
            },
          ],
        },
      }),
    ).toEqual({
      cards: [
        { index: 0, instances: [{ namespace: 'a', pod: 'b', container: 'c', device_id: 'GPU-0' }] },
      ],
    });
    expect(readMgpuNodeStatus({ status: { cards: 'none' } })).toBeUndefined();
  });
});
