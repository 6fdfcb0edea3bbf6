// The ClusterRoles of rbac/console-clusterrole.yaml against the real RBAC authorizer: what the
// console, the scheduler and the node agents do is allowed, and a user without `create` on
// Deployments gets a clear 403 Status. Runs under tools/kube/with-real-cluster.sh.
import { randomBytes } from 'node:crypto';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1Deployment,
  Watch,
} from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeConfigAs, kubectl, statusOf } from './test-support.js';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const namespace = `rbac-${randomBytes(3).toString('hex')}`;
const MGPU = { group: 'mgpu.console.io', version: 'v1alpha1', plural: 'mgpunodes' };

function deployment(name: string): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'registry.invalid/mgpu/pause:1' }] },
      },
    },
  };
}

describe.skipIf(!onRealTier())('RBAC of the mGPU console on the real API server', () => {
  const admin = () => kubeConfigAs('admin');

  beforeAll(async () => {
    await admin()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace } } });
  });

  afterAll(async () => {
    await admin().makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
  });

  it('lets the console read nodes, pods, events, replicasets, controllerrevisions, namespaces and mgpunodes', async () => {
    const kc = kubeConfigAs('console');
    const core = kc.makeApiClient(CoreV1Api);
    expect((await core.listNode()).items.length).toBeGreaterThan(0);
    await core.listPodForAllNamespaces();
    await core.listEventForAllNamespaces();
    await core.listNamespace();
    await kc.makeApiClient(AppsV1Api).listReplicaSetForAllNamespaces();
    // workload.history and workload.rollback read a StatefulSet's revisions.
    await kc.makeApiClient(AppsV1Api).listControllerRevisionForAllNamespaces();
    await kc.makeApiClient(CustomObjectsApi).listClusterCustomObject(MGPU);
  });

  it('lets the console read resourcequotas, for quota-exceeded and the used / limit figures', async () => {
    const core = kubeConfigAs('console').makeApiClient(CoreV1Api);
    await core.listResourceQuotaForAllNamespaces();
    await core.listNamespacedResourceQuota({ namespace, watch: false });
  });

  it('lets the console create, get, list, watch, patch and delete its Deployments and record events', async () => {
    const kc = kubeConfigAs('console');
    const apps = kc.makeApiClient(AppsV1Api);
    const seen = new Promise<string>((resolve, reject) => {
      void new Watch(kc)
        .watch(
          `/apis/apps/v1/namespaces/${namespace}/deployments`,
          {},
          (phase, object: V1Deployment) => resolve(`${phase} ${object.metadata?.name ?? ''}`),
          (error: unknown) => {
            if (error) reject(error);
          },
        )
        .then((abort) => seen.finally(() => abort.abort()));
    });
    await apps.createNamespacedDeployment({ namespace, body: deployment('console-web') });
    expect(await seen).toBe('ADDED console-web');
    await apps.readNamespacedDeployment({ namespace, name: 'console-web' });
    expect((await apps.listNamespacedDeployment({ namespace })).items).toHaveLength(1);
    const patched = await apps.patchNamespacedDeployment(
      { namespace, name: 'console-web', body: { metadata: { labels: { edited: 'yes' } } } },
      mergePatch,
    );
    expect(patched.metadata?.labels?.edited).toBe('yes');
    await kc.makeApiClient(CoreV1Api).createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: 'console-web.' },
        involvedObject: {
          kind: 'Deployment',
          namespace,
          name: 'console-web',
          apiVersion: 'apps/v1',
        },
        reason: 'CreatedFromConsole',
        message: 'created in the mGPU console',
        type: 'Normal',
        source: { component: 'mgpu-console' },
      },
    });
    await apps.deleteNamespacedDeployment({ namespace, name: 'console-web' });
  });

  it('keeps the console from what it does not need: creating pods, writing nodes', async () => {
    const core = kubeConfigAs('console').makeApiClient(CoreV1Api);
    // Thunks, run one at a time: an eager second call would reject unobserved.
    const attempts = [
      () =>
        core.createNamespacedPod({
          namespace,
          body: {
            metadata: { name: 'direct' },
            spec: { containers: [{ name: 'main', image: 'registry.invalid/x:1' }] },
          },
        }),
      () => core.createNode({ body: { metadata: { name: 'not-from-the-console' } } }),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(statusOf(error)?.code).toBe(403);
    }
  });

  it('lets the scheduler and node agents bind pods, annotate them, write status and mgpunodes', async () => {
    const core = admin().makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'to-place' },
        spec: {
          // A scheduler name nobody serves, so the project's scheduler leaves it to this test.
          schedulerName: 'rbac-test',
          containers: [{ name: 'main', image: 'registry.invalid/x:1' }],
        },
      },
    });
    const kc = kubeConfigAs('controllers');
    const asControllers = kc.makeApiClient(CoreV1Api);
    const firstNode = (await asControllers.listNode()).items[0];
    expect(firstNode?.metadata?.name).toBeDefined();
    // Bound to a node no agent runs, so no node agent acts on the pod while the test does.
    const node = 'rbac-test-node';
    await asControllers.listPodForAllNamespaces();
    await asControllers.patchNamespacedPod(
      {
        namespace,
        name: 'to-place',
        body: {
          metadata: {
            annotations: {
              'vke.volcengine.com/assumed': 'true',
              'vke.volcengine.com/gpu-index-container-main': '0',
            },
          },
        },
      },
      mergePatch,
    );
    // The scheduler binds through POST .../bindings, which RBAC checks as `bindings`.
    await asControllers.createNamespacedBinding({
      namespace,
      body: { metadata: { name: 'to-place' }, target: { kind: 'Node', name: node } },
    });
    const running = await asControllers.patchNamespacedPodStatus(
      { namespace, name: 'to-place', body: { status: { phase: 'Running' } } },
      mergePatch,
    );
    expect(running.spec?.nodeName).toBe(node);
    expect(running.status?.phase).toBe('Running');

    // A no-op status patch of a real node: authorized, and leaves the agent's status alone.
    await asControllers.patchNodeStatus(
      {
        name: firstNode?.metadata?.name ?? '',
        body: { status: { allocatable: firstNode?.status?.allocatable } },
      },
      mergePatch,
    );
    // A node agent finishes a graceful delete, as the kubelet does.
    await core.deleteNamespacedPod({ namespace, name: 'to-place' });
    await asControllers.deleteNamespacedPod({ namespace, name: 'to-place', gracePeriodSeconds: 0 });

    const custom = kc.makeApiClient(CustomObjectsApi);
    const name = `rbac-test-${randomBytes(3).toString('hex')}`;
    await custom.createClusterCustomObject({
      ...MGPU,
      body: { apiVersion: 'mgpu.console.io/v1alpha1', kind: 'MgpuNode', metadata: { name } },
    });
    await custom.patchClusterCustomObjectStatus(
      { ...MGPU, name, body: { status: { cards: [] } } },
      mergePatch,
    );
    await custom.deleteClusterCustomObject({ ...MGPU, name });
    await asControllers.createNamespacedEvent({
      namespace,
      body: {
        metadata: { generateName: 'to-place.' },
        involvedObject: { kind: 'Pod', namespace, name: 'to-place', apiVersion: 'v1' },
        reason: 'MgpuAssigned',
        message: 'cards 0',
        type: 'Normal',
        source: { component: 'mgpu-scheduler' },
      },
    });
  });

  it('refuses a user without create on Deployments with a clear 403 Status', async () => {
    const apps = kubeConfigAs('viewer').makeApiClient(AppsV1Api);
    // The viewer can read (built-in `view` role) ...
    await apps.listNamespacedDeployment({ namespace });
    // ... but not create.
    const error = await apps
      .createNamespacedDeployment({ namespace, body: deployment('not-allowed') })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(statusOf(error)).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      // A create has no name in its URL, so the authorizer (and the Status) names none.
      details: { group: 'apps', kind: 'deployments' },
      message: `deployments.apps is forbidden: User "mgpu-viewer" cannot create resource "deployments" in API group "apps" in the namespace "${namespace}"`,
    });

    // What an operator re-running the console's YAML through kubectl would see.
    const cli = kubectl(
      'viewer',
      ['create', '-n', namespace, '-f', '-'],
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', ...deployment('not-allowed') }),
    );
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('Error from server (Forbidden)');
    expect(cli.stderr).toContain(
      'deployments.apps is forbidden: User "mgpu-viewer" cannot create resource "deployments" in API group "apps"',
    );
  });
});
