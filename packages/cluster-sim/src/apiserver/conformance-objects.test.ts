/**
 * API conformance, objects: discovery, create/get/update/delete, graceful pod deletion and list,
 * answered the way a kube-apiserver answers them.
 */
import {
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  apps,
  cluster,
  core,
  deployment,
  namespace,
  pod,
  useConformanceCluster,
  WATCH_WINDOW,
} from '../test-support/conformance.js';
import { expectStatus } from './test-cluster.js';

useConformanceCluster();

describe('discovery', () => {
  it('serves /version, /api, /apis and resource lists with subresources', async () => {
    const version = (await cluster.request('GET', '/version')).json() as { gitVersion: string };
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    const appsResources = (await cluster.request('GET', '/apis/apps/v1')).json() as {
      resources: {
        name: string;
        kind: string;
        namespaced: boolean;
        verbs: string[];
        shortNames?: string[];
      }[];
    };
    const byName = new Map(appsResources.resources.map((resource) => [resource.name, resource]));
    expect(byName.get('deployments')).toMatchObject({
      kind: 'Deployment',
      namespaced: true,
      shortNames: ['deploy'],
    });
    expect(byName.get('deployments')?.verbs).toEqual(
      expect.arrayContaining(['create', 'list', 'watch', 'patch']),
    );
    expect(byName.get('deployments/scale')).toMatchObject({ kind: 'Scale' });
    expect(byName.get('replicasets/status')).toMatchObject({ kind: 'ReplicaSet' });
    const coreResources = (await cluster.request('GET', '/api/v1')).json() as {
      resources: { name: string }[];
    };
    expect(coreResources.resources.map((resource) => resource.name)).toEqual(
      expect.arrayContaining([
        'pods',
        'pods/status',
        'pods/binding',
        'nodes',
        'nodes/status',
        'namespaces',
        'events',
      ]),
    );
    const mgpu = (await cluster.request('GET', '/apis/mgpu.console.io/v1alpha1')).json() as {
      resources: { name: string; namespaced: boolean; shortNames?: string[] }[];
    };
    expect(mgpu.resources.find((resource) => resource.name === 'mgpunodes')).toMatchObject({
      namespaced: false,
      shortNames: ['mgn'],
    });
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((item) => item.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system']),
    );
  });
});

describe('create, get, update, delete', () => {
  it('fills in name, uid, timestamps, resourceVersion and pod defaults', async () => {
    const created = await core.createNamespacedPod({
      namespace,
      body: { ...pod(''), metadata: { generateName: 'gen-' } },
    });
    expect(created.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(typeof created.metadata?.resourceVersion).toBe('string');
    expect(created.status?.phase).toBe('Pending');
    expect(created.spec?.restartPolicy).toBe('Always');
    const read = await core.readNamespacedPod({ name: created.metadata?.name ?? '', namespace });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    await core.deleteNamespacedPod({ name: created.metadata?.name ?? '', namespace });
    const gone = await expectStatus(
      core.readNamespacedPod({ name: created.metadata?.name ?? '', namespace }),
    );
    expect(gone).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      details: { name: created.metadata?.name, kind: 'pods' },
    });
  });

  it('refuses a duplicate with 409 AlreadyExists and a missing namespace with 404', async () => {
    await core.createNamespacedPod({ namespace, body: pod('dup') });
    const duplicate = await expectStatus(core.createNamespacedPod({ namespace, body: pod('dup') }));
    expect(duplicate).toMatchObject({
      code: 409,
      reason: 'AlreadyExists',
      details: { name: 'dup', kind: 'pods' },
    });
    const missing = await expectStatus(
      core.createNamespacedPod({ namespace: 'no-such-namespace', body: pod('x') }),
    );
    expect(missing).toMatchObject({
      code: 404,
      reason: 'NotFound',
      details: { name: 'no-such-namespace', kind: 'namespaces' },
    });
  });

  it('defaults deployments and bumps generation only on spec changes', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace,
      body: {
        ...deployment('gen'),
        spec: { ...deployment('gen').spec, replicas: undefined } as V1Deployment['spec'],
      },
    });
    expect(created.spec?.replicas).toBe(1);
    expect(created.spec?.strategy).toMatchObject({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
    });
    expect(created.metadata?.generation).toBe(1);
    // Patches without a resourceVersion: on a real cluster the deployment controller writes
    // status concurrently, and these assertions look only at each response.
    const withStatus = await apps.patchNamespacedDeploymentStatus(
      {
        name: 'gen',
        namespace,
        body: { spec: { replicas: 7 }, status: { observedGeneration: 1, collisionCount: 42 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(withStatus.metadata?.generation).toBe(1);
    expect(withStatus.spec?.replicas).toBe(1);
    expect(withStatus.status?.collisionCount).toBe(42);
    const scaled = await apps.patchNamespacedDeployment(
      { name: 'gen', namespace, body: { spec: { replicas: 3 }, status: { replicas: 99 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(scaled.metadata?.generation).toBe(2);
    expect(scaled.spec?.replicas).toBe(3);
    expect(scaled.status?.replicas).not.toBe(99);
    const relabelled = await apps.patchNamespacedDeployment(
      { name: 'gen', namespace, body: { metadata: { labels: { app: 'gen', team: 'gpu' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(relabelled.metadata?.generation).toBe(2);
  });

  it('rejects an update with a stale resourceVersion with 409 Conflict', async () => {
    const current = await core.createNamespacedPod({ namespace, body: pod('occ', { app: 'occ' }) });
    const first = await core.replaceNamespacedPod({
      name: 'occ',
      namespace,
      body: { ...current, metadata: { ...current.metadata, labels: { app: 'occ', round: 'one' } } },
    });
    expect(first.metadata?.resourceVersion).not.toBe(current.metadata?.resourceVersion);
    const stale = await expectStatus(
      core.replaceNamespacedPod({
        name: 'occ',
        namespace,
        body: {
          ...current,
          metadata: { ...current.metadata, labels: { app: 'occ', round: 'two' } },
        },
      }),
    );
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict' });
    const after = await core.readNamespacedPod({ name: 'occ', namespace });
    expect(after.metadata?.labels?.round).toBe('one');
  });

  it('binds a pod to a node once', async () => {
    await core.createNamespacedPod({ namespace, body: pod('bind-me') });
    await core.createNamespacedPodBinding({
      name: 'bind-me',
      namespace,
      body: {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'bind-me' },
        target: { kind: 'Node', name: 'node-a' },
      },
    });
    const bound = await core.readNamespacedPod({ name: 'bind-me', namespace });
    expect(bound.spec?.nodeName).toBe('node-a');
    expect(
      bound.status?.conditions?.find((condition) => condition.type === 'PodScheduled')?.status,
    ).toBe('True');
    const replaced = await expectStatus(
      core.createNamespacedBinding({
        namespace,
        body: {
          metadata: { name: 'bind-me', uid: '00000000-0000-4000-8000-000000000000' },
          target: { kind: 'Node', name: 'node-b' },
        },
      }),
    );
    expect(replaced).toMatchObject({ code: 409, reason: 'Conflict' });
    const again = await expectStatus(
      core.createNamespacedPodBinding({
        name: 'bind-me',
        namespace,
        body: { metadata: { name: 'bind-me' }, target: { kind: 'Node', name: 'node-b' } },
      }),
    );
    expect(again).toMatchObject({ code: 409, reason: 'Conflict' });
    const onNode = await core.listNamespacedPod({
      namespace,
      fieldSelector: 'spec.nodeName=node-a',
    });
    expect(onNode.items.map((item) => item.metadata?.name)).toEqual(['bind-me']);
  });

  it('keeps status out of main updates and spec out of status updates for pods', async () => {
    const created = await core.createNamespacedPod({ namespace, body: pod('status-split') });
    const running = await core.replaceNamespacedPodStatus({
      name: 'status-split',
      namespace,
      body: {
        ...created,
        spec: { ...created.spec, activeDeadlineSeconds: 5 } as V1Pod['spec'],
        status: { phase: 'Running' },
      },
    });
    expect(running.status?.phase).toBe('Running');
    expect(running.spec?.activeDeadlineSeconds).toBeUndefined();
    const relabelled = await core.replaceNamespacedPod({
      name: 'status-split',
      namespace,
      body: {
        ...running,
        metadata: { ...running.metadata, labels: { x: 'y' } },
        status: { phase: 'Failed' },
      },
    });
    expect(relabelled.status?.phase).toBe('Running');
    expect(relabelled.metadata?.labels).toEqual({ x: 'y' });
  });
});

describe('graceful pod deletion', () => {
  it('keeps a pod on a node Terminating until it is deleted with grace 0', async () => {
    const nodeName = `grace-node-${namespace}`;
    await core.createNode({ body: { metadata: { name: nodeName } } });
    try {
      await core.createNamespacedPod({ namespace, body: pod('graceful') });
      await core.createNamespacedPodBinding({
        name: 'graceful',
        namespace,
        body: { metadata: { name: 'graceful' }, target: { kind: 'Node', name: nodeName } },
      });
      const terminating = await core.deleteNamespacedPod({ name: 'graceful', namespace });
      expect(terminating.metadata?.deletionTimestamp).toBeTruthy();
      expect(terminating.metadata?.deletionGracePeriodSeconds).toBe(30);
      const still = await core.readNamespacedPod({ name: 'graceful', namespace });
      expect(still.metadata?.deletionTimestamp).toBeTruthy();
      await core.deleteNamespacedPod({ name: 'graceful', namespace, gracePeriodSeconds: 0 });
      const gone = await expectStatus(core.readNamespacedPod({ name: 'graceful', namespace }));
      expect(gone.code).toBe(404);
    } finally {
      await core.deleteNode({ name: nodeName });
    }
  });
});

describe('list', () => {
  it('filters by label and field selectors', async () => {
    const selectors = await cluster.createNamespace('selectors');
    await core.createNamespacedPod({
      namespace: selectors,
      body: pod('a1', { app: 'a', tier: 'web' }),
    });
    await core.createNamespacedPod({ namespace: selectors, body: pod('a2', { app: 'a' }) });
    await core.createNamespacedPod({
      namespace: selectors,
      body: pod('b1', { app: 'b', tier: 'db' }),
    });
    await core.createNamespacedPod({ namespace: selectors, body: pod('c1', { app: 'c' }) });
    const names = async (labelSelector?: string, fieldSelector?: string): Promise<string[]> =>
      (await core.listNamespacedPod({ namespace: selectors, labelSelector, fieldSelector })).items
        .map((item) => item.metadata?.name ?? '')
        .sort();
    expect(await names('app=a')).toEqual(['a1', 'a2']);
    expect(await names('app==a')).toEqual(['a1', 'a2']);
    expect(await names('app!=a')).toEqual(['b1', 'c1']);
    expect(await names('app in (a,b)')).toEqual(['a1', 'a2', 'b1']);
    expect(await names('app notin (a,b)')).toEqual(['c1']);
    expect(await names('tier')).toEqual(['a1', 'b1']);
    expect(await names('!tier')).toEqual(['a2', 'c1']);
    expect(await names('app=a,tier=web')).toEqual(['a1']);
    expect(await names(undefined, 'metadata.name=b1')).toEqual(['b1']);
    expect(await names(undefined, `metadata.namespace=${selectors},metadata.name!=b1`)).toEqual([
      'a1',
      'a2',
      'c1',
    ]);
    expect(await names(undefined, 'status.phase=Pending')).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(await names(undefined, 'spec.nodeName=')).toEqual(['a1', 'a2', 'b1', 'c1']);
    const everywhere = await core.listPodForAllNamespaces({ labelSelector: 'app=b' });
    expect(
      everywhere.items.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`),
    ).toContain(`${selectors}/b1`);
  });

  it('pages with limit and continue', async () => {
    const paging = await cluster.createNamespace('paging');
    for (let i = 0; i < 5; i += 1)
      await core.createNamespacedPod({ namespace: paging, body: pod(`p${i}`) });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedPod({ namespace: paging, limit: 2, _continue: token });
      seen.push(...page.items.map((item) => item.metadata?.name ?? ''));
      token = page.metadata?._continue || undefined;
      pages += 1;
      if (token) expect(page.metadata?.remainingItemCount).toBeGreaterThan(0);
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
  });

  it('answers 410 Expired for a continue token older than the event window', async () => {
    if (!cluster.isSim) return;
    const expiring = await cluster.createNamespace('expiring');
    for (let i = 0; i < 3; i += 1)
      await core.createNamespacedPod({ namespace: expiring, body: pod(`e${i}`) });
    const first = await core.listNamespacedPod({ namespace: expiring, limit: 1 });
    for (let i = 0; i < WATCH_WINDOW + 2; i += 1) {
      await core.patchNamespacedPod(
        { name: 'e0', namespace: expiring, body: { metadata: { labels: { round: String(i) } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
    const expired = await expectStatus(
      core.listNamespacedPod({
        namespace: expiring,
        limit: 1,
        _continue: first.metadata?._continue,
      }),
    );
    expect(expired).toMatchObject({ code: 410, reason: 'Expired' });
  });
});
