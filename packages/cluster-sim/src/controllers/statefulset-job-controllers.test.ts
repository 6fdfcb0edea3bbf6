import { BatchV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ControllerCluster,
  eventually,
  startControllerCluster,
} from '../test-support/controller-cluster.js';

let cluster: ControllerCluster;
let namespace: string;
let batch: BatchV1Api;

beforeAll(async () => {
  cluster = await startControllerCluster();
  namespace = await cluster.createNamespace('kinds');
  batch = cluster.kubeConfig.makeApiClient(BatchV1Api);
}, 60_000);
afterAll(async () => cluster?.close());

const template = (app: string, image: string, restartPolicy?: 'OnFailure') => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'web', image }], ...(restartPolicy ? { restartPolicy } : {}) },
});

async function livePods(owner: string, kind: string): Promise<V1Pod[]> {
  const list = await cluster.core.listNamespacedPod({ namespace });
  return list.items.filter(
    (pod) =>
      !pod.metadata?.deletionTimestamp &&
      pod.metadata?.ownerReferences?.some((ref) => ref.kind === kind && ref.name === owner),
  );
}

const running = (pods: V1Pod[]) => pods.filter((pod) => pod.status?.phase === 'Running');

describe('StatefulSet and Job controllers (kube-controller-manager on the real tier)', () => {
  it('runs a StatefulSet as ordinal pods, scales it and rolls a new template through', async () => {
    await cluster.apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template('db', 'nginx:1.27'),
        },
      },
    });
    const names = await eventually(async () => {
      const pods = running(await livePods('db', 'StatefulSet'));
      return pods.length === 2 ? pods.map((pod) => pod.metadata?.name).sort() : undefined;
    }, 30_000);
    expect(names).toEqual(['db-0', 'db-1']);

    await cluster.apps.patchNamespacedStatefulSet({
      name: 'db',
      namespace,
      body: [
        { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.28' },
      ],
    });
    const images = await eventually(async () => {
      const pods = running(await livePods('db', 'StatefulSet'));
      const images = pods.map((pod) => pod.spec?.containers[0]?.image);
      return pods.length === 2 && images.every((image) => image === 'nginx:1.28')
        ? images
        : undefined;
    }, 60_000);
    expect(images).toHaveLength(2);

    await cluster.apps.patchNamespacedStatefulSet({
      name: 'db',
      namespace,
      body: [{ op: 'replace', path: '/spec/replicas', value: 1 }],
    });
    const after = await eventually(async () => {
      const pods = await livePods('db', 'StatefulSet');
      return pods.length === 1 ? pods.map((pod) => pod.metadata?.name) : undefined;
    }, 30_000);
    expect(after).toEqual(['db-0']);
  }, 120_000);

  it("keeps a Job's parallelism of pods running and follows a change of it", async () => {
    await batch.createNamespacedJob({
      namespace,
      body: {
        metadata: { name: 'train' },
        spec: {
          parallelism: 2,
          completions: 4,
          template: template('train', 'nginx:1.27', 'OnFailure'),
        },
      },
    });
    const pods = await eventually(async () => {
      const pods = running(await livePods('train', 'Job'));
      return pods.length === 2 ? pods : undefined;
    }, 30_000);
    expect(pods).toHaveLength(2);
    await batch.patchNamespacedJob({
      name: 'train',
      namespace,
      body: [{ op: 'replace', path: '/spec/parallelism', value: 3 }],
    });
    const more = await eventually(async () => {
      const pods = running(await livePods('train', 'Job'));
      return pods.length === 3 ? pods : undefined;
    }, 30_000);
    expect(more).toHaveLength(3);
    const job = await batch.readNamespacedJob({ name: 'train', namespace });
    expect(job.status?.active).toBe(3);
  }, 90_000);
});
