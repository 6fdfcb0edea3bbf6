import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  type V1Deployment,
  type V1Job,
} from '@kubernetes/client-node';
import { mergePatch } from '@mgpu/kube-client';
import {
  checkRequest,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from '@mgpu/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  callerWithChangeAfterCheck,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  uniqueName,
  withCompute,
} from './test-support/bff-harness.js';

const harness = startBffTest();
let apps: AppsV1Api;
let batch: BatchV1Api;
let core: CoreV1Api;
beforeAll(() => {
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
  batch = harness.adminKubeConfig.makeApiClient(BatchV1Api);
  core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
});

const namespace = 'default';

/** The console's own manifest of the seed example (no pods), made with kubectl minus its managed-by label. */
async function createWithKubectl(name: string): Promise<void> {
  const request = WorkloadRequestSchema.parse(seedRequest(name, { replicas: 0 }));
  const manifest = checkRequest(request, { reservedNamespaces: [] }).manifest as V1Deployment;
  delete manifest.metadata?.labels?.[MANAGED_BY_LABEL];
  await apps.createNamespacedDeployment({ namespace, body: manifest });
}

const storedDeployment = (name: string) => apps.readNamespacedDeployment({ namespace, name });

describe('scale and update refuse a workload the console did not make, as delete does (spec §8)', () => {
  it('refuses scale and update without force (412 not-managed, nothing changed), then does them with force', async () => {
    const name = uniqueName('kubectl');
    await createWithKubectl(name);
    const form = await harness.caller.workload.get({ namespace, name });
    expect(form.managedByConsole).toBe(false);

    const scale = { namespace, name, replicas: 1, lang: 'en' as const };
    const scaleRefused = await ruleErrorsOf(harness.caller.workload.scale(scale));
    expect(scaleRefused.code).toBe('PRECONDITION_FAILED');
    expect(scaleRefused.errors).toMatchObject([{ rule: 'not-managed', path: 'force' }]);
    expect(scaleRefused.errors[0]?.message).toContain(`Deployment "default/${name}"`);
    expect(scaleRefused.errors[0]?.fix).toContain('"force": true');

    const edit = {
      namespace,
      name,
      resourceVersion: form.resourceVersion,
      request: withCompute(form.request, '1.6'),
      lang: 'en' as const,
    };
    const updateRefused = await ruleErrorsOf(harness.caller.workload.update(edit));
    expect(updateRefused.code).toBe('PRECONDITION_FAILED');
    expect(updateRefused.errors).toMatchObject([{ rule: 'not-managed', path: 'force' }]);
    const untouched = await storedDeployment(name);
    expect(untouched.spec?.replicas).toBe(0);
    const [worker] = untouched.spec?.template.spec?.containers ?? [];
    expect(worker?.resources?.limits?.['vke.volcengine.com/mgpu-core']).toBe('120');

    const updated = await harness.caller.workload.update({ ...edit, force: true });
    expect(updated.changes).toMatchObject([{ path: 'containers.0.gpu.compute', after: '1.6' }]);
    const scaled = await harness.caller.workload.scale({ ...scale, force: true });
    expect(scaled.replicas).toBe(1);
    expect((await storedDeployment(name)).spec?.replicas).toBe(1);
    await harness.caller.workload.delete({ namespace, name, force: true });
  });
});

const managed = { [MANAGED_BY_LABEL]: MANAGED_BY };
const busybox = (name: string) => ({
  metadata: { labels: { app: name } },
  spec: { containers: [{ name: 'main', image: 'busybox' }] },
});

describe('scale without kind refuses a name two kinds share, as delete does', () => {
  it('says kind-ambiguous (400) for a Deployment and a Job of one name, and scales the one named', async () => {
    const name = uniqueName('twin');
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name, labels: managed },
        spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: busybox(name) },
      },
    });
    const job: V1Job = {
      metadata: { name, labels: managed },
      spec: {
        parallelism: 0,
        completions: 1,
        template: { ...busybox(name), spec: { ...busybox(name).spec, restartPolicy: 'Never' } },
      },
    };
    await batch.createNamespacedJob({ namespace, body: job });

    const refused = await ruleErrorsOf(
      harness.caller.workload.scale({ namespace, name, replicas: 1, lang: 'en' }),
    );
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors).toMatchObject([{ rule: 'kind-ambiguous', path: 'kind' }]);
    expect(refused.errors[0]?.message).toContain('Deployment, Job');
    expect((await storedDeployment(name)).spec?.replicas).toBe(0);

    const scaled = await harness.caller.workload.scale({
      namespace,
      name,
      kind: 'Job',
      replicas: 1,
    });
    expect(scaled.kind).toBe('Job');
    expect((await storedDeployment(name)).spec?.replicas).toBe(0);
    await harness.caller.workload.delete({ namespace, name, kind: 'Job' });
    await harness.caller.workload.delete({ namespace, name, kind: 'Deployment' });
  });
});

/** Someone's Deployment of that name with no pods, labelled `labels` (the console's or not). */
const createDeployment = (name: string, labels: Record<string, string>) =>
  apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name, labels },
      spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: busybox(name) },
    },
  });

describe('scale changes only the object it checked, as delete does', () => {
  it('refuses, as a conflict, a kubectl-made object put in the checked one’s place, and leaves it at its replicas', async () => {
    const name = uniqueName('swap');
    await createDeployment(name, managed);
    let replacement: string | undefined;
    const caller = callerWithChangeAfterCheck(harness, async () => {
      await apps.deleteNamespacedDeployment({ namespace, name });
      const created = await createDeployment(name, { team: 'other' });
      replacement = created.metadata?.uid;
    });
    const refused = await ruleErrorsOf(
      caller.workload.scale({ namespace, name, kind: 'Deployment', replicas: 1, lang: 'en' }),
    );
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict' }]);
    const stored = await storedDeployment(name);
    expect(replacement).toBeDefined();
    expect(stored.metadata?.uid).toBe(replacement);
    expect(stored.spec?.replicas).toBe(0);
    await harness.caller.workload.delete({ namespace, name, force: true });
  });

  it('still scales the checked object when only its version moved (an annotation write)', async () => {
    const name = uniqueName('churn');
    await createDeployment(name, managed);
    const caller = callerWithChangeAfterCheck(harness, async () => {
      const body = { metadata: { annotations: { 'example.com/touched': 'yes' } } };
      await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
    });
    const scaled = await caller.workload.scale({ namespace, name, replicas: 1, lang: 'en' });
    expect(scaled).toMatchObject({ kind: 'Deployment', replicas: 1 });
    const stored = await storedDeployment(name);
    expect(stored.spec?.replicas).toBe(1);
    expect(stored.metadata?.annotations?.['example.com/touched']).toBe('yes');
    await harness.caller.workload.delete({ namespace, name });
  });

  it('is answered 409 for a stale resourceVersion, and nothing changes', async () => {
    const name = uniqueName('stale');
    const created = await createDeployment(name, managed);
    const stale = {
      uid: created.metadata?.uid ?? '',
      resourceVersion: created.metadata?.resourceVersion ?? '',
    };
    const body = { metadata: { annotations: { 'example.com/touched': 'yes' } } };
    await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
    const answer = await harness.bff.context.cluster.workloads
      .scale('Deployment', namespace, name, 1, stale)
      .then(
        () => 'scaled',
        (error: unknown) => (error as { code?: number }).code,
      );
    expect(answer).toBe(409);
    expect((await storedDeployment(name)).spec?.replicas).toBe(0);
    await harness.caller.workload.delete({ namespace, name });
  });
});

const statefulSet = (name: string): WorkloadRequestInput =>
  seedRequest(name, { kind: 'StatefulSet', replicas: 0 });

const statefulSetExists = (name: string) =>
  apps.readNamespacedStatefulSet({ namespace, name }).then(
    () => true,
    () => false,
  );

describe('a StatefulSet is never made over a Service of its name that is not its headless one', () => {
  it('refuses (409 statefulset-service) over a cluster-IP Service of other pods, makes nothing; after the fix it is made', async () => {
    const name = uniqueName('sts');
    await core.createNamespacedService({
      namespace,
      body: {
        metadata: { name },
        spec: { selector: { app: 'someone-else' }, ports: [{ port: 80 }] },
      },
    });
    const request = WorkloadRequestSchema.parse(statefulSet(name));
    const refused = await ruleErrorsOf(harness.caller.workload.create({ request, lang: 'en' }));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'statefulset-service', path: 'name' }]);
    expect(refused.errors[0]?.fix).toContain(`kubectl delete service ${name}`);
    expect(await statefulSetExists(name)).toBe(false);
    const service = await core.readNamespacedService({ namespace, name });
    expect(service.spec?.selector).toEqual({ app: 'someone-else' });

    // The fix the error names: the Service goes, and the same request makes both.
    await core.deleteNamespacedService({ namespace, name });
    await harness.caller.workload.create({ request, lang: 'en' });
    expect(await statefulSetExists(name)).toBe(true);
    const made = await core.readNamespacedService({ namespace, name });
    expect(made.spec?.clusterIP).toBe('None');
    await harness.caller.workload.delete({ namespace, name, kind: 'StatefulSet' });
  });

  it('reuses a headless Service that is the one the console would make, as before', async () => {
    const name = uniqueName('sts');
    const request = WorkloadRequestSchema.parse(statefulSet(name));
    const { manifest } = checkRequest(request, { reservedNamespaces: [] });
    const selector = (manifest as { spec: { selector: { matchLabels: Record<string, string> } } })
      .spec.selector.matchLabels;
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name }, spec: { clusterIP: 'None', selector } },
    });
    const created = await harness.caller.workload.create({ request, lang: 'en' });
    expect(created.created).toBe(true);
    await harness.caller.workload.delete({ namespace, name, kind: 'StatefulSet' });
    await core.deleteNamespacedService({ namespace, name }).catch(() => undefined);
  });
});
