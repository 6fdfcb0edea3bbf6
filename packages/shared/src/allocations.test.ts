import { describe, expect, it } from 'vitest';
import { type PodLike, podAllocationRecords, verifyInstance } from './allocations.js';
import type { MgpuNodeStatus } from './ledger/mgpu-node.js';

const seedPod = (annotations: Record<string, string>, limits: Record<string, string>): PodLike => ({
  metadata: {
    name: 'demo-7d9c-abcde',
    namespace: 'default',
    labels: { 'pod-template-hash': '7d9c' },
    ownerReferences: [{ kind: 'ReplicaSet', name: 'demo-7d9c' }],
    annotations,
  },
  spec: {
    nodeName: 'l20-1',
    containers: [{ name: 'worker', image: 'nginx', resources: { limits } }],
  },
  status: {
    phase: 'Running',
    containerStatuses: [{ name: 'worker', containerID: 'containerd://abc' }],
  },
});

const seed = seedPod(
  {
    'vke.volcengine.com/multiple-mgpu-worker': '2',
    'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
    'vke.volcengine.com/gpu-index-container-worker': '1,3',
  },
  { 'vke.volcengine.com/mgpu-core': '120', 'vke.volcengine.com/mgpu-memory': '8192' },
);

const report = (weight: number, limit: number): MgpuNodeStatus => ({
  cards: [1, 3].map((index) => ({
    index,
    instances: [
      {
        namespace: 'default',
        pod: 'demo-7d9c-abcde',
        container: 'worker',
        device_id: index,
        compute_weight_native_burst: weight,
        compute_weight_online: weight,
        vmem_limit: limit,
      },
    ],
  })),
});

describe('podAllocationRecords', () => {
  it('gives one record per card with the node-side fields, verified when they match the request', () => {
    const records = podAllocationRecords(seed, report(60, 4096));
    expect(records.map((r) => [r.id, r.card, r.workload, r.verification])).toEqual([
      ['default/demo-7d9c-abcde/worker/1', 1, 'demo', 'verified'],
      ['default/demo-7d9c-abcde/worker/3', 3, 'demo', 'verified'],
    ]);
    expect(records[0]).toMatchObject({
      requested: { computePercent: 60, memoryMiB: 4096 },
      device_id: 1,
    });
  });

  it('says drift, and which field, when the node gave something else', () => {
    const [record] = podAllocationRecords(seed, report(50, 4096));
    expect(record).toMatchObject({ verification: 'drift', drift: ['compute_weight_native_burst'] });
  });

  it('makes nothing up without a node report: null fields, the container ID from the pod status', () => {
    const [record] = podAllocationRecords(seed, undefined);
    expect(record).toMatchObject({
      verification: 'unreported',
      compute_weight_native_burst: null,
      vmem_limit: null,
      container_id: 'containerd://abc',
      sources: { card: 'scheduler-annotation', container_id: 'pod-status', nodeFields: null },
    });
  });

  it('still shows a scheduled pod whose request the console would refuse, with what it asks', () => {
    const odd = seedPod(
      { 'vke.volcengine.com/gpu-index-container-worker': '0' },
      { 'vke.volcengine.com/mgpu-core': '50', 'vke.volcengine.com/mgpu-memory': '512' },
    );
    expect(podAllocationRecords(odd, undefined)).toMatchObject([
      { card: 0, requested: { computePercent: 50, memoryMiB: 512 } },
    ]);
  });

  it('has no records for a pod the scheduler has not placed', () => {
    const pending = { ...seed, spec: { containers: seed.spec?.containers ?? [] } };
    expect(podAllocationRecords(pending, undefined)).toEqual([]);
  });
});

describe('verifyInstance', () => {
  it('compares the online weight outside native-burst-share, and memory only for slices', () => {
    expect(
      verifyInstance({ computePercent: 100, memoryMiB: null }, 'fixed-share', {
        namespace: '',
        pod: '',
        container: '',
        compute_weight_online: 100,
      }),
    ).toEqual({ verification: 'verified', drift: [] });
  });
});
