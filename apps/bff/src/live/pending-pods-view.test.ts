import { PendingPodsView, type PendingSource } from '@mgpu/api';
import { describe, expect, it } from 'vitest';

/** A GPU pod no node holds: 30 % of one card, of a Deployment `workload`'s ReplicaSet. */
const pendingPod = (name: string, workload = 'trainer') => ({
  metadata: {
    name,
    namespace: 'default',
    uid: name,
    creationTimestamp: '2026-12-05T10:00:00Z',
    labels: { 'pod-template-hash': 'abc' },
    ownerReferences: [{ kind: 'ReplicaSet', name: `${workload}-abc`, controller: true }],
    annotations: { 'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share' },
  },
  spec: {
    containers: [
      {
        name: 'worker',
        image: 'nginx',
        resources: {
          limits: {
            'vke.volcengine.com/mgpu-core': '30',
            'vke.volcengine.com/mgpu-memory': '1024',
          },
        },
      },
    ],
  },
  status: { phase: 'Pending' },
});

type Listener = (event: { type: string; object: unknown }) => void;

/** The view's source as the informers would feed it, changed by the test at will. */
function fakeSource() {
  const pods: ReturnType<typeof pendingPod>[] = [];
  const listeners: Listener[] = [];
  const source = {
    cluster: {
      pods: { subscribe: (listener: Listener) => listeners.push(listener) },
      nodes: { subscribe: () => () => {} },
      unscheduledPods: () => [...pods],
    },
    cardPolicy: 'binpack',
    modelLabel: 'machine.cluster.vke.volcengine.com/gpu-name',
    nodeStates: () => [],
    pools: () => [],
  } as unknown as PendingSource;
  return {
    source,
    add(pod: ReturnType<typeof pendingPod>) {
      pods.push(pod);
      for (const listener of listeners) listener({ type: 'add', object: pod });
    },
  };
}

describe('the shared pending view', () => {
  it('answers a call made after a change with that change, even while a computation runs', async () => {
    const cluster = fakeSource();
    cluster.add(pendingPod('trainer-1'));
    const view = new PendingPodsView(cluster.source);
    const before = view.current();
    // The computation above has read the pods; a pod joins before it is done.
    cluster.add(pendingPod('trainer-2'));
    const after = await view.current();
    expect(after.podCount).toBe(2);
    expect((await before).podCount).toBeGreaterThanOrEqual(1);
    // One group for the one shape, listing both pods, its reasons once.
    expect(after.groups).toHaveLength(1);
    expect(after.groups[0]?.pods.map((pod) => pod.pod)).toEqual(['trainer-1', 'trainer-2']);
  });

  it('shares one computation among callers and keeps an unchanged group the same object', async () => {
    const cluster = fakeSource();
    cluster.add(pendingPod('trainer-1'));
    cluster.add(pendingPod('other-1', 'other'));
    const view = new PendingPodsView(cluster.source);
    const [first, second] = await Promise.all([view.current(), view.current()]);
    expect(second).toBe(first);
    cluster.add(pendingPod('other-2', 'other'));
    const next = await view.current();
    const trainer = (state: typeof next) => state.groups.find((g) => g.workload === 'trainer');
    expect(trainer(next)).toBe(trainer(first));
    expect(next.podCount).toBe(3);
  });
});
