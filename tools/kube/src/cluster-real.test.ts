// What cluster:real promises (spec §7, "The real control plane"): an upstream server, the
// default topology's nodes with their labels and allocatable, the MgpuNode CRD, and the real
// deployment, replicaset and garbage-collector controllers. Runs under with-real-cluster.sh.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type V1Pod,
  type V1ReplicaSet,
  VersionApi,
} from '@kubernetes/client-node';
import { loadTopology, topologyNodes } from '@mgpu/cluster-sim';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubeConfigAs, kubectl, testKubeconfig } from './test-support.js';

const namespace = `real-${randomBytes(3).toString('hex')}`;

describe.skipIf(!onRealTier())('cluster:real', () => {
  const kc = () => kubeConfigAs('admin');

  beforeAll(async () => {
    await kc()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace } } });
  });

  afterAll(async () => {
    await kc().makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
  });

  // Tools wait for the word (spec §7): a progress line saying it before the kubeconfig exists
  // made them race.
  it.skipIf(!process.env.MGPU_TEST_CLUSTER_OUTPUT)(
    'says "ready" in its last line only, once the kubeconfig is written',
    () => {
      const output = process.env.MGPU_TEST_CLUSTER_OUTPUT ?? '';
      const lines = (stream: string) =>
        existsSync(join(output, stream))
          ? readFileSync(join(output, stream), 'utf8').split('\n').filter(Boolean)
          : [];
      const stdout = lines('stdout');
      const saysReady = (line: string) => /\bready\b/i.test(line);
      expect(lines('stderr').filter(saysReady)).toEqual([]);
      expect(stdout.filter(saysReady)).toEqual([stdout.at(-1)]);
      expect(stdout.at(-1)).toContain(`kubeconfig ${testKubeconfig}`);
    },
  );

  it('is upstream Kubernetes v1.32', async () => {
    const version = await kc().makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toMatch(/^v1\.32\.\d+$/);
    expect(version.major).toBe('1');
    expect(version.minor).toBe('32');
  });

  it('registers every node of the default topology with its labels, capacity and allocatable', async () => {
    const nodes = (await kc().makeApiClient(CoreV1Api).listNode()).items;
    const expected = topologyNodes(loadTopology());
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual(expected.map((n) => n.name).sort());
    for (const { name, object } of expected) {
      const node = nodes.find((n) => n.metadata?.name === name);
      expect(node?.metadata?.labels).toMatchObject(object.metadata.labels);
      expect(node?.status?.allocatable).toEqual(object.status.allocatable);
      expect(node?.status?.capacity).toEqual(object.status.capacity);
    }
  });

  it('serves mgpunodes through the CRD, to client-node and to kubectl', async () => {
    await kc().makeApiClient(CustomObjectsApi).listClusterCustomObject({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
    });
    const resources = kubectl('admin', ['api-resources', '--api-group=mgpu.console.io']);
    expect(resources.status).toBe(0);
    expect(resources.stdout).toMatch(
      /mgpunodes\s+mgn\s+mgpu\.console\.io\/v1alpha1\s+false\s+MgpuNode/,
    );
    expect(kubectl('admin', ['get', 'mgn']).status).toBe(0);
  });

  it("runs kube-controller-manager's deployment, replicaset and garbage collector controllers", async () => {
    const apps = kc().makeApiClient(AppsV1Api);
    const core = kc().makeApiClient(CoreV1Api);
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'main', image: 'registry.invalid/mgpu/pause:1' }] },
          },
        },
      },
    });
    const replicaSet = await eventually<V1ReplicaSet>('the ReplicaSet of web', async () =>
      (await apps.listNamespacedReplicaSet({ namespace })).items.find(
        (rs) => rs.metadata?.ownerReferences?.[0]?.name === 'web',
      ),
    );
    const pods = await eventually<V1Pod[]>('two pods of web', async () => {
      const items = (await core.listNamespacedPod({ namespace })).items.filter(
        (pod) => pod.metadata?.ownerReferences?.[0]?.uid === replicaSet.metadata?.uid,
      );
      return items.length === 2 ? items : undefined;
    });
    expect(pods.every((pod) => pod.metadata?.generateName?.startsWith('web-'))).toBe(true);

    await apps.deleteNamespacedDeployment({
      namespace,
      name: 'web',
      propagationPolicy: 'Background',
    });
    await eventually('the garbage collector to delete the ReplicaSet', async () =>
      (await apps.listNamespacedReplicaSet({ namespace })).items.length === 0 ? true : undefined,
    );
  });
});
