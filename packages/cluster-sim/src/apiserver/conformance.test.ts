/**
 * API conformance through @kubernetes/client-node: the calls our controllers and the BFF
 * make, answered the way a kube-apiserver answers them.
 */

import { randomUUID } from 'node:crypto';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  type V1OwnerReference,
  type V1Pod,
  type V1ReplicaSet,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  eventually,
  expectStatus,
  startTestCluster,
  type TestCluster,
  UNSCHEDULED,
} from './test-cluster.js';

// A real cluster (MGPU_TEST_KUBECONFIG) answers slower than the sim.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let cluster: TestCluster;
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;
let namespace: string;

const WATCH_WINDOW = 20;

beforeAll(async () => {
  cluster = await startTestCluster({
    watchWindow: WATCH_WINDOW,
    bookmarkIntervalMs: 100,
    stateFileDelayMs: 20,
  });
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
  custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  namespace = await cluster.createNamespace('conformance');
});

afterAll(async () => {
  await cluster.close();
});

function pod(name: string, labels: Record<string, string> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx:1.27' }] },
  };
}

function deployment(name: string, replicas = 2): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          schedulerName: UNSCHEDULED,
          containers: [
            {
              name: 'worker',
              image: 'nginx:1.27',
              env: [{ name: 'MODE', value: 'a' }],
              ports: [{ containerPort: 80 }],
            },
          ],
        },
      },
    },
  };
}

/** Collects watch events until `until` says stop or the timeout passes. */
async function collectWatch(
  path: string,
  query: Record<string, string | boolean>,
  act: () => Promise<void>,
  until: (
    events: { type: string; object: KubernetesObject & { code?: number; reason?: string } }[],
  ) => boolean,
): Promise<{ type: string; object: KubernetesObject & { code?: number; reason?: string } }[]> {
  const events: { type: string; object: KubernetesObject & { code?: number; reason?: string } }[] =
    [];
  let finished: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const controller = await new Watch(cluster.kubeConfig).watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object });
      if (until(events)) finished?.();
    },
    () => finished?.(),
  );
  await act();
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5000))]);
  controller.abort();
  return events;
}

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

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED from a resourceVersion', async () => {
    const watched = await cluster.createNamespace('watch');
    const list = await core.listNamespacedPod({ namespace: watched });
    const events = await collectWatch(
      `/api/v1/namespaces/${watched}/pods`,
      { resourceVersion: list.metadata?.resourceVersion ?? '' },
      async () => {
        await core.createNamespacedPod({ namespace: watched, body: pod('w1', { app: 'w' }) });
        await core.patchNamespacedPod(
          {
            name: 'w1',
            namespace: watched,
            body: { metadata: { labels: { app: 'w', seen: 'yes' } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        await core.deleteNamespacedPod({ name: 'w1', namespace: watched });
      },
      (collected) => collected.some((event) => event.type === 'DELETED'),
    );
    // A pod is marked for deletion (MODIFIED with deletionTimestamp) before it goes.
    expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(events[2]?.object.metadata?.deletionTimestamp).toBeTruthy();
    const versions = events.map((event) => BigInt(event.object.metadata?.resourceVersion ?? '0'));
    expect([...versions].sort((a, b) => (a < b ? -1 : 1))).toEqual(versions);
  });

  it('turns a label change out of the selector into DELETED and sends bookmarks', async () => {
    const watched = await cluster.createNamespace('watch-sel');
    await core.createNamespacedPod({ namespace: watched, body: pod('s1', { app: 'in' }) });
    const events = await collectWatch(
      `/api/v1/namespaces/${watched}/pods`,
      { labelSelector: 'app=in', allowWatchBookmarks: true },
      async () => {
        await core.patchNamespacedPod(
          { name: 's1', namespace: watched, body: { metadata: { labels: { app: 'out' } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      },
      (collected) =>
        collected.some((event) => event.type === 'DELETED') &&
        (!cluster.isSim || collected.some((event) => event.type === 'BOOKMARK')),
    );
    const types = events.map((event) => event.type).filter((type) => type !== 'BOOKMARK');
    expect(types).toEqual(['ADDED', 'DELETED']);
    if (cluster.isSim) {
      const bookmark = events.find((event) => event.type === 'BOOKMARK');
      expect(bookmark?.object.metadata?.resourceVersion).toBeTruthy();
    }
  });

  it('answers a too old resourceVersion with an ERROR event carrying 410 Expired', async () => {
    if (!cluster.isSim) return;
    const churn = await cluster.createNamespace('churn');
    const before = await core.listNamespacedPod({ namespace: churn });
    await core.createNamespacedPod({ namespace: churn, body: pod('c') });
    for (let i = 0; i < WATCH_WINDOW + 2; i += 1) {
      await core.patchNamespacedPod(
        { name: 'c', namespace: churn, body: { metadata: { labels: { round: String(i) } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
    const events = await collectWatch(
      `/api/v1/namespaces/${churn}/pods`,
      { resourceVersion: before.metadata?.resourceVersion ?? '' },
      async () => undefined,
      (collected) => collected.length > 0,
    );
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
  });

  it('feeds an informer', async () => {
    const informed = await cluster.createNamespace('informer');
    const informer = makeInformer(cluster.kubeConfig, `/api/v1/namespaces/${informed}/pods`, () =>
      core.listNamespacedPod({ namespace: informed }),
    );
    const added: string[] = [];
    informer.on('add', (object) => added.push(object.metadata?.name ?? ''));
    await informer.start();
    await core.createNamespacedPod({ namespace: informed, body: pod('i1') });
    await eventually(async () => (added.includes('i1') ? true : undefined));
    expect(informer.list(informed).map((item) => item.metadata?.name)).toEqual(['i1']);
    await informer.stop();
  });
});

describe('patch', () => {
  it('applies merge, strategic merge, JSON patch and server-side apply', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('patched') });
    const merged = await apps.patchNamespacedDeployment(
      { name: 'patched', namespace, body: { metadata: { labels: { team: 'gpu' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.metadata?.labels).toEqual({ app: 'patched', team: 'gpu' });

    const strategic = await apps.patchNamespacedDeployment(
      {
        name: 'patched',
        namespace,
        body: {
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'worker', image: 'nginx:1.28', env: [{ name: 'EXTRA', value: 'b' }] },
                  { name: 'sidecar', image: 'busybox:1.36' },
                ],
              },
            },
          },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    const containers = strategic.spec?.template.spec?.containers ?? [];
    expect(containers.map((container) => container.name)).toEqual(['worker', 'sidecar']);
    expect(containers[0]?.image).toBe('nginx:1.28');
    // Strategic merge puts patched items not on the server first (normalizeElementOrder).
    expect(containers[0]?.env?.map((variable) => variable.name)).toEqual(['EXTRA', 'MODE']);
    expect(containers[0]?.ports?.[0]?.containerPort).toBe(80);
    expect(strategic.metadata?.generation).toBe(2);

    const deleted = await apps.patchNamespacedDeployment(
      {
        name: 'patched',
        namespace,
        body: {
          spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(deleted.spec?.template.spec?.containers.map((container) => container.name)).toEqual([
      'worker',
    ]);

    const jsonPatched = await apps.patchNamespacedDeployment(
      {
        name: 'patched',
        namespace,
        body: [
          { op: 'test', path: '/spec/replicas', value: 2 },
          { op: 'replace', path: '/spec/replicas', value: 4 },
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(jsonPatched.spec?.replicas).toBe(4);
    const failedTest = await expectStatus(
      apps.patchNamespacedDeployment(
        { name: 'patched', namespace, body: [{ op: 'test', path: '/spec/replicas', value: 2 }] },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      ),
    );
    expect(failedTest.code).toBe(422);

    const applied = await apps.patchNamespacedDeployment(
      {
        name: 'patched',
        namespace,
        fieldManager: 'conformance',
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'patched', annotations: { owner: 'ops' } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    expect(applied.metadata?.annotations?.owner).toBe('ops');
    expect(applied.spec?.replicas).toBe(4);
  });

  it('creates with server-side apply when the object is missing', async () => {
    const created = await apps.patchNamespacedDeployment(
      { name: 'applied', namespace, fieldManager: 'conformance', body: deployment('applied') },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
    expect(created.metadata?.uid).toBeTruthy();
  });

  it('scales through the scale subresource', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('scaled', 1) });
    const scale = await apps.readNamespacedDeploymentScale({ name: 'scaled', namespace });
    expect(scale).toMatchObject({
      kind: 'Scale',
      spec: { replicas: 1 },
      status: { selector: 'app=scaled' },
    });
    // No resourceVersion: a real deployment controller may have written status meanwhile.
    await apps.replaceNamespacedDeploymentScale({
      name: 'scaled',
      namespace,
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'scaled', namespace },
        spec: { replicas: 4 },
      },
    });
    const patched = await apps.patchNamespacedDeploymentScale(
      { name: 'scaled', namespace, body: { spec: { replicas: 6 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.spec?.replicas).toBe(6);
    const read = await apps.readNamespacedDeployment({ name: 'scaled', namespace });
    expect(read.spec?.replicas).toBe(6);
    expect(read.metadata?.generation).toBe(3);
    const negative = await expectStatus(
      apps.replaceNamespacedDeploymentScale({
        name: 'scaled',
        namespace,
        body: {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: 'scaled', namespace },
          spec: { replicas: -1 },
        },
      }),
    );
    expect(negative).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});

describe('validation', () => {
  it('answers 422 Invalid with a cause per broken field', async () => {
    const broken = deployment('broken');
    const template = broken.spec?.template.spec;
    if (!template) throw new Error('fixture has a template');
    template.containers = [
      { name: 'worker', image: '' },
      { name: 'worker', image: 'nginx' },
      { name: 'Bad_Name', image: 'nginx' },
    ];
    const status = await expectStatus(apps.createNamespacedDeployment({ namespace, body: broken }));
    expect(status).toMatchObject({
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      details: { name: 'broken', kind: 'Deployment' },
    });
    expect(status.details?.causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          reason: 'FieldValueRequired',
          field: 'spec.template.spec.containers[0].image',
        }),
        expect.objectContaining({
          reason: 'FieldValueDuplicate',
          field: 'spec.template.spec.containers[1].name',
        }),
        expect.objectContaining({
          reason: 'FieldValueInvalid',
          field: 'spec.template.spec.containers[2].name',
        }),
      ]),
    );
    const mismatch = deployment('mismatch');
    if (mismatch.spec) mismatch.spec.selector = { matchLabels: { app: 'other' } };
    const selectorStatus = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: mismatch }),
    );
    expect(selectorStatus.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'spec.template.metadata.labels' })]),
    );
    const badName = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: deployment('Not_A_Name') }),
    );
    expect(badName.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
    });
    const noContainers = await expectStatus(
      core.createNamespacedPod({
        namespace,
        body: { metadata: { name: 'empty' }, spec: { containers: [] } },
      }),
    );
    expect(noContainers.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueRequired',
      field: 'spec.containers',
    });
  });

  it('names a Service with a DNS-1035 label: a letter first, no dots', async () => {
    const service = (name: string) => ({
      metadata: { name },
      spec: { clusterIP: 'None', selector: { app: name } },
    });
    for (const name of ['web.v2', '1web']) {
      const status = await expectStatus(
        core.createNamespacedService({ namespace, body: service(name), dryRun: 'All' }),
      );
      expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(status.details?.causes?.[0]).toMatchObject({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
      });
    }
    const valid = await core.createNamespacedService({
      namespace,
      body: service('web-v2'),
      dryRun: 'All',
    });
    expect(valid.metadata?.name).toBe('web-v2');
  });

  it('keeps the selector of a deployment and the spec of a pod immutable', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('fixed') });
    const changed = await expectStatus(
      apps.patchNamespacedDeployment(
        {
          name: 'fixed',
          namespace,
          body: {
            spec: {
              selector: { matchLabels: { extra: 'x' } },
              template: { metadata: { labels: { extra: 'x' } } },
            },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(changed.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'spec.selector' })]),
    );
    await core.createNamespacedPod({ namespace, body: pod('frozen') });
    const image = await core.patchNamespacedPod(
      {
        name: 'frozen',
        namespace,
        body: { spec: { containers: [{ name: 'worker', image: 'nginx:1.28' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(image.spec?.containers[0]?.image).toBe('nginx:1.28');
    const forbidden = await expectStatus(
      core.patchNamespacedPod(
        { name: 'frozen', namespace, body: { spec: { restartPolicy: 'Never' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(forbidden).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(forbidden.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueForbidden',
      field: 'spec',
    });
  });
});

describe('dry run', () => {
  it('validates but stores nothing on create, update, patch and delete', async () => {
    const dry = await apps.createNamespacedDeployment({
      namespace,
      body: deployment('dry'),
      dryRun: 'All',
    });
    expect(dry.metadata?.name).toBe('dry');
    expect(
      (await expectStatus(apps.readNamespacedDeployment({ name: 'dry', namespace }))).code,
    ).toBe(404);
    const invalidDry = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: deployment('Bad Name'), dryRun: 'All' }),
    );
    expect(invalidDry.code).toBe(422);
    // Update, patch and delete on a pod: no controller writes to an unscheduled pod, so its
    // resourceVersion stays put on a real cluster too.
    const real = await core.createNamespacedPod({ namespace, body: pod('wet') });
    await core.patchNamespacedPod(
      { name: 'wet', namespace, dryRun: 'All', body: { metadata: { labels: { dry: 'patch' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.replaceNamespacedPod({
      name: 'wet',
      namespace,
      dryRun: 'All',
      body: { ...real, metadata: { ...real.metadata, labels: { dry: 'update' } } },
    });
    await core.deleteNamespacedPod({ name: 'wet', namespace, dryRun: 'All' });
    const after = await core.readNamespacedPod({ name: 'wet', namespace });
    expect(after.metadata?.labels ?? {}).toEqual({});
    expect(after.metadata?.resourceVersion).toBe(real.metadata?.resourceVersion);
  });
});

describe('garbage collection', () => {
  /** A ReplicaSet of no pods with a selector of its own: only the garbage collector acts on it. */
  const idleReplicaSet = (name: string, ownerReferences: V1OwnerReference[]): V1ReplicaSet => {
    const labels = { app: name };
    return {
      metadata: { name, labels, ownerReferences },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx' }] },
        },
      },
    };
  };

  /**
   * Deployment → ReplicaSet → Pod by ownerReferences. The ReplicaSet's selector is its own and
   * its reference to the Deployment is not a controller reference, so on a real cluster the
   * deployment controller neither adopts nor scales it; only the garbage collector acts.
   */
  async function ownedTree(name: string): Promise<void> {
    const owner = await apps.createNamespacedDeployment({ namespace, body: deployment(name) });
    const replicaSet = await apps.createNamespacedReplicaSet({
      namespace,
      body: idleReplicaSet(`${name}-rs`, [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name,
          uid: owner.metadata?.uid ?? '',
          blockOwnerDeletion: true,
        },
      ]),
    });
    // The pod's labels are not the ReplicaSet's and its reference is no controller reference,
    // so a real replicaset controller neither counts, adopts nor deletes it.
    const podLabels = { app: `${name}-pod` };
    await core.createNamespacedPod({
      namespace,
      body: {
        ...pod(`${name}-pod`, podLabels),
        metadata: {
          name: `${name}-pod`,
          labels: podLabels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: `${name}-rs`,
              uid: replicaSet.metadata?.uid ?? '',
              blockOwnerDeletion: true,
            },
          ],
        },
      },
    });
    await collectorCaughtUp(name);
  }

  /**
   * A real garbage collector acts on what its own informers have seen: a dependent it has not
   * observed yet is not orphaned with its owner but collected later as dangling. So wait until it
   * has collected a ReplicaSet and a Pod created after the tree, each naming an owner that never
   * existed; one watch stream per resource delivers in order, so by then it knows the tree.
   */
  async function collectorCaughtUp(name: string): Promise<void> {
    const ghost = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: `${name}-ghost`,
      uid: randomUUID(),
    };
    await apps.createNamespacedReplicaSet({
      namespace,
      body: idleReplicaSet(`${name}-canary`, [ghost]),
    });
    const labels = { app: `${name}-canary` };
    await core.createNamespacedPod({
      namespace,
      body: {
        ...pod(`${name}-canary`, labels),
        metadata: { name: `${name}-canary`, labels, ownerReferences: [ghost] },
      },
    });
    await eventually(async () =>
      !(await exists(apps.readNamespacedReplicaSet({ name: `${name}-canary`, namespace }))) &&
      !(await exists(core.readNamespacedPod({ name: `${name}-canary`, namespace })))
        ? true
        : undefined,
    );
  }

  async function exists(read: Promise<unknown>): Promise<boolean> {
    try {
      await read;
      return true;
    } catch (error) {
      if ((await expectStatus(Promise.reject(error))).code === 404) return false;
      throw error;
    }
  }

  it('cascades a background delete from Deployment to ReplicaSets to Pods', async () => {
    await ownedTree('cascade');
    await apps.deleteNamespacedDeployment({
      name: 'cascade',
      namespace,
      propagationPolicy: 'Background',
    });
    await eventually(async () =>
      !(await exists(core.readNamespacedPod({ name: 'cascade-pod', namespace })))
        ? true
        : undefined,
    );
    expect(await exists(apps.readNamespacedReplicaSet({ name: 'cascade-rs', namespace }))).toBe(
      false,
    );
  });

  it('orphans dependents by removing their ownerReferences', async () => {
    await ownedTree('orphan');
    await apps.deleteNamespacedDeployment({
      name: 'orphan',
      namespace,
      propagationPolicy: 'Orphan',
    });
    // A real garbage collector orphans asynchronously (through the "orphan" finalizer).
    const replicaSet = await eventually(async () => {
      const current = await apps.readNamespacedReplicaSet({ name: 'orphan-rs', namespace });
      return (current.metadata?.ownerReferences ?? []).length === 0 ? current : undefined;
    });
    expect(replicaSet.metadata?.name).toBe('orphan-rs');
    expect(await exists(core.readNamespacedPod({ name: 'orphan-pod', namespace }))).toBe(true);
  });

  it('deletes dependents before the owner in the foreground', async () => {
    await ownedTree('fore');
    const pending = await apps.deleteNamespacedDeployment({
      name: 'fore',
      namespace,
      propagationPolicy: 'Foreground',
    });
    expect(pending).toBeTruthy();
    await eventually(async () =>
      !(await exists(apps.readNamespacedDeployment({ name: 'fore', namespace })))
        ? true
        : undefined,
    );
    expect(await exists(apps.readNamespacedReplicaSet({ name: 'fore-rs', namespace }))).toBe(false);
    expect(await exists(core.readNamespacedPod({ name: 'fore-pod', namespace }))).toBe(false);
  });

  it('collects a dependent created after its owner went, and keeps one whose owner lives', async () => {
    const gone = await apps.createNamespacedDeployment({ namespace, body: deployment('went') });
    await apps.deleteNamespacedDeployment({ name: 'went', namespace });
    const live = await apps.createNamespacedDeployment({ namespace, body: deployment('lives') });
    // What a controller acting on a stale cache does: create for an owner that is already gone.
    for (const [name, owner] of [
      ['late', gone],
      ['kept', live],
    ] as const) {
      await core.createNamespacedPod({
        namespace,
        body: {
          ...pod(`${name}-pod`, { app: `${name}-pod` }),
          metadata: {
            name: `${name}-pod`,
            labels: { app: `${name}-pod` },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: owner.metadata?.name ?? '',
                uid: owner.metadata?.uid ?? '',
              },
            ],
          },
        },
      });
    }
    await eventually(async () =>
      !(await exists(core.readNamespacedPod({ name: 'late-pod', namespace }))) ? true : undefined,
    );
    expect(await exists(core.readNamespacedPod({ name: 'kept-pod', namespace }))).toBe(true);
  });

  it('deletes a collection of pods by label', async () => {
    const bulk = await cluster.createNamespace('bulk');
    for (const name of ['k1', 'k2', 'k3'])
      await core.createNamespacedPod({
        namespace: bulk,
        body: pod(name, { keep: name === 'k3' ? 'yes' : 'no' }),
      });
    await core.deleteCollectionNamespacedPod({ namespace: bulk, labelSelector: 'keep=no' });
    const left = await core.listNamespacedPod({ namespace: bulk });
    expect(left.items.map((item) => item.metadata?.name)).toEqual(['k3']);
  });
});

describe('custom resource MgpuNode', () => {
  it('stores node-agent reports with a status subresource', async () => {
    const report = {
      apiVersion: 'mgpu.console.io/v1alpha1',
      kind: 'MgpuNode',
      metadata: { name: 'node-report-a' },
      spec: { nodeName: 'node-a' },
      status: { ignored: true },
    };
    const created = (await custom.createClusterCustomObject({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      body: report,
    })) as { status?: unknown; metadata: { resourceVersion: string } };
    expect(created.status).toBeUndefined();
    const updated = (await custom.replaceClusterCustomObjectStatus({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      name: 'node-report-a',
      body: {
        ...report,
        // Custom resources refuse a PUT without the version it replaces.
        metadata: { name: 'node-report-a', resourceVersion: created.metadata.resourceVersion },
        status: { instances: [{ device_id: 0, compute_weight_online: 60 }] },
      },
    })) as { status?: { instances: unknown[] } };
    expect(updated.status?.instances).toHaveLength(1);
    const strategic = await expectStatus(
      custom.patchClusterCustomObject(
        {
          group: 'mgpu.console.io',
          version: 'v1alpha1',
          plural: 'mgpunodes',
          name: 'node-report-a',
          body: { spec: {} },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(strategic.code).toBe(415);
    await custom.deleteClusterCustomObject({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      name: 'node-report-a',
    });
  });
});

describe('state file', () => {
  it('keeps objects across a restart and keeps resourceVersions increasing', async () => {
    if (!cluster.isSim) return;
    const kept = await apps.createNamespacedDeployment({ namespace, body: deployment('kept') });
    await cluster.restart();
    const restored = await apps.readNamespacedDeployment({ name: 'kept', namespace });
    expect(restored.metadata?.uid).toBe(kept.metadata?.uid);
    expect(restored.metadata?.resourceVersion).toBe(kept.metadata?.resourceVersion);
    const changed = await apps.patchNamespacedDeployment(
      {
        name: 'kept',
        namespace,
        body: { metadata: { labels: { app: 'kept', after: 'restart' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(BigInt(changed.metadata?.resourceVersion ?? '0')).toBeGreaterThan(
      BigInt(kept.metadata?.resourceVersion ?? '0'),
    );
  });
});
