/**
 * ResourceQuota on mGPU resources (issue 17 item 6), held to kube-apiserver: the same cases run
 * on the embedded cluster and, with MGPU_TEST_KUBECONFIG, on upstream kube-apiserver and
 * kube-controller-manager. A pod is charged its containers' requests, a multi-card container
 * its total (per-card share × cards, as the manifest writes it); a pod past the quota is refused
 * with 403 and upstream's exact words; status.used follows creates and deletes.
 */
import { CoreV1Api, type V1Pod, type V1ResourceQuota } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  eventually,
  expectStatus,
  startTestCluster,
  type TestCluster,
  UNSCHEDULED,
} from './test-cluster.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const CORE = 'vke.volcengine.com/mgpu-core';
const MEMORY = 'vke.volcengine.com/mgpu-memory';
const QUOTA_CORE = `requests.${CORE}`;
const QUOTA_MEMORY = `requests.${MEMORY}`;

let cluster: TestCluster;
let core: CoreV1Api;
let namespace: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  namespace = await cluster.createNamespace('quota');
});

afterAll(async () => {
  await cluster.close();
});

function gpuPod(
  name: { name: string } | { generateName: string },
  mgpuCore: number,
  memoryMiB: number,
  cards = 1,
): V1Pod {
  const resources = { [CORE]: String(mgpuCore), [MEMORY]: String(memoryMiB) };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...name,
      ...(cards > 1
        ? { annotations: { 'vke.volcengine.com/multiple-mgpu-worker': String(cards) } }
        : {}),
    },
    spec: {
      schedulerName: UNSCHEDULED,
      containers: [
        {
          name: 'worker',
          image: 'nginx:1.27',
          resources: { requests: resources, limits: { ...resources } },
        },
      ],
    },
  };
}

/** status.used of the quota once it has caught up with `expected` (the controller is asynchronous upstream). */
async function usedReaches(name: string, expected: Record<string, string>) {
  return eventually(async () => {
    const quota = await core.readNamespacedResourceQuota({ name, namespace });
    const used = quota.status?.used ?? {};
    return Object.entries(expected).every(([key, value]) => used[key] === value)
      ? quota
      : undefined;
  }, 30_000);
}

describe('ResourceQuota on mGPU resources', () => {
  it('charges pods, refuses one past the limit with 403 and the numbers, and frees on delete', async () => {
    const quota: V1ResourceQuota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'gpu' },
      spec: { hard: { [QUOTA_CORE]: '200', [QUOTA_MEMORY]: '16384' } },
    };
    await core.createNamespacedResourceQuota({ namespace, body: quota });
    // Upstream admission only enforces a quota whose status the controller has filled in.
    const synced = await usedReaches('gpu', { [QUOTA_CORE]: '0', [QUOTA_MEMORY]: '0' });
    expect(synced.status?.hard).toEqual({ [QUOTA_CORE]: '200', [QUOTA_MEMORY]: '16384' });

    // compute 1.2 on 2 cards: 60 per card, charged 120 in all (what the container requests).
    await core.createNamespacedPod({ namespace, body: gpuPod({ name: 'multi' }, 120, 8192, 2) });
    await usedReaches('gpu', { [QUOTA_CORE]: '120', [QUOTA_MEMORY]: '8192' });

    const refused = await expectStatus(
      core.createNamespacedPod({ namespace, body: gpuPod({ name: 'over' }, 100, 4096) }),
    );
    expect(refused).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      details: { name: 'over', kind: 'pods' },
      message: `pods "over" is forbidden: exceeded quota: gpu, requested: ${QUOTA_CORE}=100, used: ${QUOTA_CORE}=120, limited: ${QUOTA_CORE}=200`,
    });
    // Both resources over: both named, in sorted order; a generateName pod by the name it got.
    const both = await expectStatus(
      core.createNamespacedPod({ namespace, body: gpuPod({ generateName: 'gen-' }, 100, 12288) }),
    );
    const generated = both.details?.name ?? '';
    expect(generated).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(both.message).toBe(
      `pods "${generated}" is forbidden: exceeded quota: gpu, requested: ${QUOTA_CORE}=100,${QUOTA_MEMORY}=12288, used: ${QUOTA_CORE}=120,${QUOTA_MEMORY}=8192, limited: ${QUOTA_CORE}=200,${QUOTA_MEMORY}=16384`,
    );

    // Exactly up to the limit is allowed; a pod without GPU requests is not charged.
    await core.createNamespacedPod({ namespace, body: gpuPod({ name: 'fits' }, 80, 8192) });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'cpu-only' },
        spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'w', image: 'nginx:1.27' }] },
      },
    });
    await usedReaches('gpu', { [QUOTA_CORE]: '200', [QUOTA_MEMORY]: '16384' });
    const full = await expectStatus(
      core.createNamespacedPod({ namespace, body: gpuPod({ name: 'one-more' }, 1, 1) }),
    );
    expect(full.code).toBe(403);

    // An unbound pod goes at once; its charge is returned to the quota.
    await core.deleteNamespacedPod({ name: 'multi', namespace });
    await usedReaches('gpu', { [QUOTA_CORE]: '80', [QUOTA_MEMORY]: '8192' });
    await core.createNamespacedPod({ namespace, body: gpuPod({ name: 'again' }, 100, 4096) });
  });

  it('checks a dry run too, and an invalid pod gets its 422 before any quota is looked at', async () => {
    const dry = await expectStatus(
      core.createNamespacedPod({
        namespace,
        body: gpuPod({ name: 'dry' }, 1000, 1024),
        dryRun: 'All',
      }),
    );
    expect(dry.code).toBe(403);
    const invalid = gpuPod({ name: 'Invalid_Name' }, 1000, 1024);
    expect((await expectStatus(core.createNamespacedPod({ namespace, body: invalid }))).code).toBe(
      422,
    );
  });
});
