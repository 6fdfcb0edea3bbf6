/**
 * The controllers' informer: its index of objects by controller follows adds, a controller
 * reference that moves, and deletes. Owners are namespaces, which no controller of a real
 * cluster reads ownerReferences for, so on the real control plane tier only the informer acts
 * on these pods (and the garbage collector finds every owner alive).
 */
import { CoreV1Api, type V1OwnerReference, type V1Pod } from '@kubernetes/client-node';
import { mergePatch, startInformer, type WatchedCache } from '@mgpu/kube-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  startTestCluster,
  type TestCluster,
  UNSCHEDULED,
} from '../apiserver/test-cluster.js';

let cluster: TestCluster;
let namespace: string;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.createNamespace('informer-index');
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
}, 60_000);
afterAll(async () => cluster?.close());

async function owner(prefix: string): Promise<V1OwnerReference> {
  const name = await cluster.createNamespace(prefix);
  const created = await core.readNamespace({ name });
  return { apiVersion: 'v1', kind: 'Namespace', name, uid: created.metadata?.uid ?? '' };
}

const pod = (name: string, references: V1OwnerReference[]): V1Pod => ({
  metadata: { name, ownerReferences: references },
  spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx:1.27' }] },
});

const names = (pods: readonly V1Pod[]) => pods.map((p) => p.metadata?.name ?? '').sort();

describe('startInformer with indexControllers', () => {
  it('finds objects by their controller as references come, move and go', async () => {
    const a = await owner('owner-a');
    const b = await owner('owner-b');
    await core.createNamespacedPod({ namespace, body: pod('p1', [{ ...a, controller: true }]) });
    await core.createNamespacedPod({ namespace, body: pod('p2', [{ ...a, controller: true }]) });
    await core.createNamespacedPod({ namespace, body: pod('p3', [{ ...b, controller: true }]) });
    // Owned, but not controlled: not in the index.
    await core.createNamespacedPod({ namespace, body: pod('p4', [a]) });

    const pods: WatchedCache<V1Pod> = await startInformer<V1Pod>(
      cluster.kubeConfig,
      `/api/v1/namespaces/${namespace}/pods`,
      () => core.listNamespacedPod({ namespace }),
      {},
      { indexControllers: true },
    );
    try {
      expect(names(pods.controlledBy(a.uid))).toEqual(['p1', 'p2']);
      expect(names(pods.controlledBy(b.uid))).toEqual(['p3']);

      await core.patchNamespacedPod(
        {
          name: 'p2',
          namespace,
          body: { metadata: { ownerReferences: [{ ...b, controller: true }] } },
        },
        mergePatch(),
      );
      await eventually(async () =>
        names(pods.controlledBy(b.uid)).join() === 'p2,p3' ? true : undefined,
      );
      expect(names(pods.controlledBy(a.uid))).toEqual(['p1']);

      await core.deleteNamespacedPod({ name: 'p1', namespace, gracePeriodSeconds: 0 });
      await eventually(async () => (pods.controlledBy(a.uid).length === 0 ? true : undefined));
      expect(names(pods.controlledBy(b.uid))).toEqual(['p2', 'p3']);
    } finally {
      await pods.stop();
    }
  });
});
