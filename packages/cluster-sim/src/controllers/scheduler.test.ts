import type { V1Pod } from '@kubernetes/client-node';
import {
  checkRequest,
  MGPU_NODE_RESOURCE,
  VKE,
  type WorkloadRequest,
  type WrittenMgpuNode,
} from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ControllerCluster,
  eventually,
  startControllerCluster,
} from '../test-support/controller-cluster.js';

let cluster: ControllerCluster;
let namespace: string;

beforeAll(async () => {
  cluster = await startControllerCluster();
  namespace = await cluster.createNamespace('sched');
}, 60_000);
afterAll(async () => cluster?.close());

/** A pod exactly as the console's manifest writes its template (spec §4). */
function podFrom(request: Omit<WorkloadRequest, 'namespace' | 'replicas'>): V1Pod {
  const checked = checkRequest({ ...request, namespace, replicas: 1 });
  if (!checked.manifest) throw new Error(JSON.stringify(checked.errors));
  const template = checked.manifest.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: request.name, namespace, ...template.metadata },
    spec: template.spec,
  };
}

const seedRequest = {
  name: 'seed-demo',
  computePolicy: 'native-burst-share',
  containers: [
    {
      name: 'worker',
      image: 'nginx:1.27',
      gpu: {
        type: 'mgpu' as const,
        multiCard: true,
        compute: '1.2',
        memoryGiB: '8',
        cards: 2,
        model: 'NVIDIA-L20',
      },
    },
  ],
};

async function readPod(name: string): Promise<V1Pod> {
  return cluster.core.readNamespacedPod({ name, namespace });
}

async function report(node: string): Promise<WrittenMgpuNode> {
  return (await cluster.custom.getClusterCustomObject({
    group: MGPU_NODE_RESOURCE.group,
    version: MGPU_NODE_RESOURCE.version,
    plural: MGPU_NODE_RESOURCE.plural,
    name: node,
  })) as WrittenMgpuNode;
}

const instancesOf = (object: WrittenMgpuNode, pod: string) =>
  (object.status?.cards ?? []).flatMap((card) =>
    card.instances.filter((instance) => instance.namespace === namespace && instance.pod === pod),
  );

// Controllers converge in well under a second alone; on a shared 2-core machine give them room.
describe('mGPU scheduler and node agents', { timeout: 60_000 }, () => {
  it('puts the seed example on two distinct cards of a native-burst-share L20 node, 60/60 on each', async () => {
    await cluster.core.createNamespacedPod({ namespace, body: podFrom(seedRequest) });
    const pod = await eventually(async () => {
      const current = await readPod('seed-demo');
      return current.status?.phase === 'Running' ? current : undefined;
    });
    const nodeName = pod.spec?.nodeName ?? '';
    const node = await cluster.core.readNode({ name: nodeName });
    expect(node.metadata?.labels?.[VKE.computePolicyLabel]).toBe('native-burst-share');
    expect(node.metadata?.labels?.[VKE.defaultModelLabel]).toBe('NVIDIA-L20');

    const annotations = pod.metadata?.annotations ?? {};
    expect(annotations[VKE.assumedAnnotation]).toBe('true');
    const cards = (annotations[`${VKE.gpuIndexAnnotationPrefix}worker`] ?? '')
      .split(',')
      .map(Number);
    expect(cards).toHaveLength(2);
    expect(new Set(cards).size).toBe(2);
    const containerID = pod.status?.containerStatuses?.[0]?.containerID ?? '';
    expect(containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);

    const instances = await eventually(async () => {
      const found = instancesOf(await report(nodeName), 'seed-demo');
      return found.length === 2 ? found : undefined;
    });
    expect(instances.map((instance) => instance.device_id).sort()).toEqual([...cards].sort());
    for (const instance of instances) {
      expect(instance).toMatchObject({
        container: 'worker',
        container_id: containerID,
        compute_weight_native_burst: 60,
        compute_weight_online: 60,
        vmem_limit: 4096,
        pod_uid: '',
      });
      expect(instance.device).toBe(`/dev/mgpu${instance.device_id}inst${instance.instance_id}`);
      for (const field of [
        'instance_id',
        'compute_priority',
        'compute_qos_enable',
        'compute_weight',
        'minor',
        'online',
        'tasks',
        'vmem_info',
      ] as const) {
        expect(instance[field]).toBeDefined();
      }
    }
  });

  it('frees the instances when the pod goes', async () => {
    const pod = await readPod('seed-demo');
    const nodeName = pod.spec?.nodeName ?? '';
    await cluster.core.deleteNamespacedPod({ name: 'seed-demo', namespace });
    await eventually(async () =>
      instancesOf(await report(nodeName), 'seed-demo').length === 0 ? true : undefined,
    );
  });

  it('explains an unschedulable pod per node group, with a FailedScheduling event', async () => {
    await cluster.core.createNamespacedPod({
      namespace,
      body: podFrom({
        name: 'wrong-policy',
        computePolicy: 'guaranteed-burst-share',
        containers: [
          {
            name: 'main',
            image: 'nginx:1.27',
            gpu: {
              type: 'mgpu',
              multiCard: false,
              compute: '0.5',
              memoryGiB: '10',
              model: 'NVIDIA-L20',
            },
          },
        ],
      }),
    });
    const condition = await eventually(async () => {
      const pod = await readPod('wrong-policy');
      return pod.status?.conditions?.find(
        (item) => item.type === 'PodScheduled' && item.status === 'False',
      );
    });
    expect(condition.reason).toBe('Unschedulable');
    expect(condition.message).toMatch(/^0\/\d+ nodes are available: /);
    expect(condition.message).toMatch(
      /NVIDIA-L20\/native-burst-share: policy native-burst-share does not match guaranteed-burst-share/,
    );
    expect(condition.message).toMatch(
      /Tesla-V100\/guaranteed-burst-share: GPU model Tesla-V100 is not NVIDIA-L20/,
    );
    const pod = await readPod('wrong-policy');
    expect(pod.spec?.nodeName).toBeFalsy();
    const event = await eventually(async () => {
      const events = await cluster.core.listNamespacedEvent({ namespace });
      return events.items.find(
        (item) => item.involvedObject.name === 'wrong-policy' && item.reason === 'FailedScheduling',
      );
    });
    expect(event.type).toBe('Warning');
    expect(event.message).toBe(condition.message);
  });

  it('schedules a waiting pod once the cluster frees room for it', async () => {
    const wholeCards = (name: string, cards: number) =>
      podFrom({
        name,
        containers: [
          {
            name: 'trainer',
            image: 'nginx:1.27',
            gpu: { type: 'nvidia', multiCard: false, cards, model: 'NVIDIA-A100-SXM4-80GB' },
          },
        ],
      });
    // The nvidia A100 node has 6 idle cards: a blocker takes them all.
    await cluster.core.createNamespacedPod({ namespace, body: wholeCards('blocker', 6) });
    await eventually(async () =>
      (await readPod('blocker')).status?.phase === 'Running' ? true : undefined,
    );
    await cluster.core.createNamespacedPod({ namespace, body: wholeCards('waiting', 2) });
    const waiting = await eventually(async () =>
      (await readPod('waiting')).status?.conditions?.find(
        (item) => item.reason === 'Unschedulable',
      ),
    );
    expect(waiting.message).toMatch(/NVIDIA-A100-SXM4-80GB\/nvidia: needs 2 idle whole cards/);
    await cluster.core.deleteNamespacedPod({ name: 'blocker', namespace });
    const pod = await eventually(async () => {
      const current = await readPod('waiting');
      return current.status?.phase === 'Running' ? current : undefined;
    });
    const cards = pod.metadata?.annotations?.[`${VKE.gpuIndexAnnotationPrefix}trainer`]?.split(',');
    expect(cards).toHaveLength(2);
  });

  it('never books a card twice when many pods arrive at once', async () => {
    // The two NVIDIA-A10 fixed-share nodes have one card each: 100 % and 30 % free, so eight
    // 0.3-compute pods fit four times (3 + 1), however fast they come.
    const names = Array.from({ length: 8 }, (_, index) => `burst-${index}`);
    await Promise.all(
      names.map((name) =>
        cluster.core.createNamespacedPod({
          namespace,
          body: podFrom({
            name,
            computePolicy: 'fixed-share',
            containers: [
              {
                name: 'main',
                image: 'nginx:1.27',
                gpu: {
                  type: 'mgpu',
                  multiCard: false,
                  compute: '0.3',
                  memoryGiB: '2',
                  model: 'NVIDIA-A10',
                },
              },
            ],
          }),
        }),
      ),
    );
    const settled = await eventually(async () => {
      const pods = await Promise.all(names.map(readPod));
      const running = pods.filter((pod) => pod.status?.phase === 'Running');
      const refused = pods.filter((pod) =>
        pod.status?.conditions?.some((item) => item.reason === 'Unschedulable'),
      );
      return running.length + refused.length === names.length ? { running, refused } : undefined;
    });
    expect(settled.running).toHaveLength(4);
    expect(
      settled.refused[0]?.status?.conditions?.find((item) => item.reason === 'Unschedulable')
        ?.message,
    ).toMatch(/NVIDIA-A10\/fixed-share: /);
    for (const node of ['a10-fixed-0', 'a10-fixed-1']) {
      const object = await eventually(async () => {
        const current = await report(node);
        const ours = (current.status?.cards ?? []).flatMap((card) =>
          card.instances.filter((instance) => instance.namespace === namespace),
        );
        const expected = settled.running.filter((pod) => pod.spec?.nodeName === node).length;
        return ours.length === expected ? current : undefined;
      });
      for (const card of object.status?.cards ?? []) {
        const compute = card.instances.reduce(
          (sum, instance) => sum + instance.compute_weight_online,
          0,
        );
        const memory = card.instances.reduce((sum, instance) => sum + instance.vmem_limit, 0);
        expect(compute).toBeLessThanOrEqual(100);
        expect(memory).toBeLessThanOrEqual(card.memoryMiB);
      }
    }
  });
});
