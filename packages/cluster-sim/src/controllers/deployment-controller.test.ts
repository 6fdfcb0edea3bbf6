import {
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1Pod,
  type V1ReplicaSet,
} from '@kubernetes/client-node';
import { isNotFound } from '@mgpu/kube-client';
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
  namespace = await cluster.createNamespace('deploy');
}, 60_000);
afterAll(async () => cluster?.close());

const deployment = (name: string, replicas: number, image = 'nginx:1.27'): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image }] },
    },
  },
});

const ownedBy = (uid: string | undefined) => (object: V1Pod | V1ReplicaSet) =>
  object.metadata?.ownerReferences?.some(
    (owner) => owner.uid === uid && owner.controller === true,
  ) ?? false;

async function replicaSetsOf(name: string): Promise<V1ReplicaSet[]> {
  const owner = await cluster.apps.readNamespacedDeployment({ name, namespace });
  const list = await cluster.apps.listNamespacedReplicaSet({ namespace });
  return list.items.filter(ownedBy(owner.metadata?.uid));
}

async function podsOf(rs: V1ReplicaSet): Promise<V1Pod[]> {
  const list = await cluster.core.listNamespacedPod({ namespace });
  return list.items
    .filter(ownedBy(rs.metadata?.uid))
    .filter((pod) => !pod.metadata?.deletionTimestamp);
}

/** The deployment once it reports `replicas` ready, updated pods of its current template. */
async function rolledOut(name: string, replicas: number): Promise<V1Deployment> {
  return eventually(
    async () => {
      const current = await cluster.apps.readNamespacedDeployment({ name, namespace });
      const status = current.status;
      return status?.observedGeneration === current.metadata?.generation &&
        (status?.updatedReplicas ?? 0) === replicas &&
        (status?.replicas ?? 0) === replicas &&
        (status?.availableReplicas ?? 0) === replicas
        ? current
        : undefined;
    },
    30_000,
    `${name} to roll out ${replicas} replicas`,
  );
}

// Controllers converge in well under a second alone; on a shared 2-core machine give them room.
describe('deployment controller', { timeout: 60_000 }, () => {
  it('creates a ReplicaSet named after the template hash, and its pods run', async () => {
    await cluster.apps.createNamespacedDeployment({ namespace, body: deployment('web', 2) });
    const done = await rolledOut('web', 2);
    const [rs, ...others] = await replicaSetsOf('web');
    expect(others).toHaveLength(0);
    const hash = rs?.metadata?.labels?.['pod-template-hash'];
    expect(hash).toBeTruthy();
    expect(rs?.metadata?.name).toBe(`web-${hash}`);
    expect(rs?.spec?.selector?.matchLabels?.['pod-template-hash']).toBe(hash);
    const pods = rs ? await podsOf(rs) : [];
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.metadata?.name?.startsWith(`web-${hash}-`)).toBe(true);
      expect(pod.metadata?.labels?.['pod-template-hash']).toBe(hash);
      expect(pod.status?.phase).toBe('Running');
    }
    const conditions = Object.fromEntries(
      (done.status?.conditions ?? []).map((condition) => [condition.type, condition.status]),
    );
    expect(conditions).toMatchObject({ Available: 'True', Progressing: 'True' });
    expect(done.status?.readyReplicas).toBe(2);
  });

  it('runs pods that request CPU and memory, with the QoS class the API server gave them', async () => {
    const body = deployment('burstable', 1);
    const container = body.spec?.template.spec?.containers[0];
    if (container) container.resources = { requests: { cpu: '100m', memory: '64Mi' } };
    await cluster.apps.createNamespacedDeployment({ namespace, body });
    await rolledOut('burstable', 1);
    const [rs] = await replicaSetsOf('burstable');
    const pods = rs ? await podsOf(rs) : [];
    expect(pods.map((pod) => [pod.status?.phase, pod.status?.qosClass])).toEqual([
      ['Running', 'Burstable'],
    ]);
  });

  it('scales up and down', async () => {
    await cluster.apps.patchNamespacedDeploymentScale(
      { name: 'web', namespace, body: { spec: { replicas: 4 } } },
      mergePatchOptions(),
    );
    await rolledOut('web', 4);
    const [rs] = await replicaSetsOf('web');
    expect(rs ? await podsOf(rs) : []).toHaveLength(4);

    const current = await cluster.apps.readNamespacedDeployment({ name: 'web', namespace });
    if (current.spec) current.spec.replicas = 1;
    await cluster.apps.replaceNamespacedDeployment({ name: 'web', namespace, body: current });
    await rolledOut('web', 1);
    await eventually(async () => {
      const [only] = await replicaSetsOf('web');
      return only && (await podsOf(only)).length === 1 ? true : undefined;
    });
  });

  it('rolls a template change out through a new ReplicaSet within maxSurge and maxUnavailable', async () => {
    const scaled = await cluster.apps.readNamespacedDeployment({ name: 'web', namespace });
    if (scaled.spec) scaled.spec.replicas = 4;
    await cluster.apps.replaceNamespacedDeployment({ name: 'web', namespace, body: scaled });
    await rolledOut('web', 4);
    const [before] = await replicaSetsOf('web');

    // Defaults for 4 replicas: maxSurge 25 % → 1 more pod at most, maxUnavailable 25 % → 1.
    // Kubernetes bounds the surge on the ReplicaSets' wanted replicas, not on pods: its own
    // controller may scale the new set up before the old set's pod is marked for deletion, so a
    // pod count can briefly read 6 there. The wanted sum is what both controllers promise.
    let sampling = true;
    let mostWanted = 0;
    let fewestReady = Number.POSITIVE_INFINITY;
    const sampler = (async () => {
      while (sampling) {
        const [list, sets] = await Promise.all([
          cluster.core.listNamespacedPod({ namespace, labelSelector: 'app=web' }),
          replicaSetsOf('web'),
        ]);
        const live = list.items.filter(
          (pod) => !pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded',
        );
        const ready = live.filter((pod) =>
          pod.status?.conditions?.some((item) => item.type === 'Ready' && item.status === 'True'),
        );
        const wanted = sets.reduce((sum, rs) => sum + (rs.spec?.replicas ?? 0), 0);
        mostWanted = Math.max(mostWanted, wanted);
        fewestReady = Math.min(fewestReady, ready.length);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const current = await cluster.apps.readNamespacedDeployment({ name: 'web', namespace });
    const container = current.spec?.template.spec?.containers[0];
    if (container) container.image = 'nginx:1.27-alpine';
    await cluster.apps.replaceNamespacedDeployment({ name: 'web', namespace, body: current });
    await rolledOut('web', 4);
    const sets = await eventually(async () => {
      const all = await replicaSetsOf('web');
      const old = all.find((rs) => rs.metadata?.name === before?.metadata?.name);
      return all.length === 2 && old?.spec?.replicas === 0 && (old.status?.replicas ?? 0) === 0
        ? all
        : undefined;
    });
    sampling = false;
    await sampler;
    const fresh = sets.find((rs) => rs.metadata?.name !== before?.metadata?.name);
    const pods = fresh ? await podsOf(fresh) : [];
    expect(pods).toHaveLength(4);
    for (const pod of pods) expect(pod.spec?.containers[0]?.image).toBe('nginx:1.27-alpine');
    expect(mostWanted).toBeLessThanOrEqual(5);
    expect(fewestReady).toBeGreaterThanOrEqual(3);
  });

  it('collects ReplicaSets and pods when the Deployment is deleted', async () => {
    const sets = await replicaSetsOf('web');
    const uids = new Set(sets.map((rs) => rs.metadata?.uid));
    await cluster.apps.deleteNamespacedDeployment({ name: 'web', namespace });
    await eventually(
      async () => {
        const replicaSets = await cluster.apps.listNamespacedReplicaSet({ namespace });
        const pods = await cluster.core.listNamespacedPod({ namespace });
        const left =
          replicaSets.items.filter((rs) => uids.has(rs.metadata?.uid)).length +
          pods.items.filter((pod) =>
            pod.metadata?.ownerReferences?.some((owner) => uids.has(owner.uid)),
          ).length;
        return left === 0 ? true : undefined;
      },
      30_000,
      'garbage collection',
    );
    await expect(
      cluster.apps.readNamespacedDeployment({ name: 'web', namespace }).catch((error) => {
        throw isNotFound(error) ? new Error('gone') : error;
      }),
    ).rejects.toThrow('gone');
  });
});

function mergePatchOptions() {
  // Scale through the `scale` subresource, as `kubectl scale` does.
  return setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
}
