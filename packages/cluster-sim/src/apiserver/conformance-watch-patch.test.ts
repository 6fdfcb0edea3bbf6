/** API conformance: watch and patch, answered the way a kube-apiserver answers them. */
import { makeInformer, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  apps,
  cluster,
  collectWatch,
  core,
  deployment,
  namespace,
  pod,
  useConformanceCluster,
  WATCH_WINDOW,
} from '../test-support/conformance.js';
import { eventually, expectStatus } from './test-cluster.js';

useConformanceCluster();

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
