/**
 * The garbage collector and namespace controller beside the embedded API server (sim only: on
 * the real tier kube-controller-manager does this), seen through the API as a client sees it.
 * The API conformance suite holds the cascade rules themselves to a real kube-apiserver.
 */
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../apiserver/api-server.js';
import { eventually, UNSCHEDULED } from '../apiserver/test-cluster.js';
import { kubeConfigFor } from '../embedded.js';

const servers: ApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function cluster(options: { controllerManager?: boolean } = {}) {
  const server = await startApiServer(options);
  servers.push(server);
  const kubeConfig = kubeConfigFor(server);
  return { core: kubeConfig.makeApiClient(CoreV1Api), apps: kubeConfig.makeApiClient(AppsV1Api) };
}

const replicaSet = (name: string) => ({
  metadata: { name },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
    },
  },
});

const podOwnedBy = (name: string, owner: { name: string; uid: string }) => ({
  metadata: {
    name,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', ...owner }],
  },
  spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'web', image: 'nginx:1.27' }] },
});

describe('controller manager', () => {
  it('empties a terminating namespace, then removes it', async () => {
    const { core, apps } = await cluster();
    await core.createNamespace({ body: { metadata: { name: 'leaving' } } });
    const owner = await apps.createNamespacedReplicaSet({
      namespace: 'leaving',
      body: replicaSet('web'),
    });
    await core.createNamespacedPod({
      namespace: 'leaving',
      body: podOwnedBy('web-1', { name: 'web', uid: owner.metadata?.uid ?? '' }),
    });
    // A dependent-free object too: the namespace controller deletes it, not the collector.
    await apps.createNamespacedReplicaSet({ namespace: 'leaving', body: replicaSet('lone') });
    await core.deleteNamespace({ name: 'leaving' });
    await eventually(async () => {
      const names = (await core.listNamespace()).items.map((item) => item.metadata?.name);
      return names.includes('leaving') ? undefined : true;
    });
    const inLeaving = (list: { items: { metadata?: { namespace?: string } }[] }) =>
      list.items.filter((item) => item.metadata?.namespace === 'leaving');
    expect(inLeaving(await core.listPodForAllNamespaces())).toEqual([]);
    expect(inLeaving(await apps.listReplicaSetForAllNamespaces())).toEqual([]);
  });

  it('finishes a foreground delete whose dependent is a pod on a node, with no kubelet to end its grace', async () => {
    const { core, apps } = await cluster();
    await core.createNode({ body: { metadata: { name: 'gpu-1' } } });
    const owner = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: replicaSet('trainer'),
    });
    const dependent = podOwnedBy('trainer-1', { name: 'trainer', uid: owner.metadata?.uid ?? '' });
    await core.createNamespacedPod({
      namespace: 'default',
      body: { ...dependent, spec: { ...dependent.spec, nodeName: 'gpu-1' } },
    });
    await apps.deleteNamespacedReplicaSet({
      name: 'trainer',
      namespace: 'default',
      propagationPolicy: 'Foreground',
    });
    await eventually(async () => {
      const sets = await apps.listNamespacedReplicaSet({ namespace: 'default' });
      const pods = await core.listNamespacedPod({ namespace: 'default' });
      return sets.items.length + pods.items.length === 0 ? true : undefined;
    });
  });

  it('collects nothing when the server runs without it', async () => {
    const { core, apps } = await cluster({ controllerManager: false });
    const owner = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: replicaSet('web'),
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: podOwnedBy('web-1', { name: 'web', uid: owner.metadata?.uid ?? '' }),
    });
    await apps.deleteNamespacedReplicaSet({ name: 'web', namespace: 'default' });
    await core.deleteNamespace({ name: 'kube-node-lease' });
    // Give a collector, were one running, every chance to act.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    const pods = await core.listNamespacedPod({ namespace: 'default' });
    expect(pods.items.map((pod) => pod.metadata?.name)).toEqual(['web-1']);
    const lease = await core.readNamespace({ name: 'kube-node-lease' });
    expect(lease.status?.phase).toBe('Terminating');
  });
});
