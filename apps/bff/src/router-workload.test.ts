/**
 * The router's workload procedures (create, progress, delete, get) and their retries, called
 * in-process against the embedded cluster.
 */
import { VKE, type WorkloadProgress } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  PENDING_GPU,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  startHarness,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();

describe('workload.create', () => {
  it('creates the seed example once, however often the same submission is retried', async () => {
    const name = uniqueName('seed');
    deleteAfterTest(harness, name);
    const clientRequestId = uniqueName('submission');
    const first = await harness.caller.workload.create({
      request: seedRequest(name),
      clientRequestId,
      lang: 'en',
    });
    expect(first).toMatchObject({ name, namespace: 'default', created: true });
    const retry = await harness.caller.workload.create({
      request: seedRequest(name),
      clientRequestId,
      lang: 'en',
    });
    expect(retry).toMatchObject({ name, created: false, uid: first.uid });

    const other = await ruleErrorsOf(
      harness.caller.workload.create({
        request: seedRequest(name),
        clientRequestId: 'another-form',
        lang: 'en',
      }),
    );
    expect(other.code).toBe('CONFLICT');
    expect(other.errors).toMatchObject([{ path: 'name', rule: 'name-taken' }]);

    const reusedForOther = await ruleErrorsOf(
      harness.caller.workload.create({
        request: seedRequest(uniqueName('other')),
        clientRequestId,
        lang: 'en',
      }),
    );
    expect(reusedForOther.errors).toMatchObject([{ rule: 'client-request-reused' }]);
    const changedRequest = await ruleErrorsOf(
      harness.caller.workload.create({
        request: seedRequest(name, { replicas: 2 }),
        clientRequestId,
        lang: 'en',
      }),
    );
    expect(changedRequest.errors).toMatchObject([{ rule: 'client-request-reused' }]);

    const progress = await eventually(async () => {
      const list = await harness.caller.workload.list();
      return list.find((workload) => workload.name === name);
    }, 'the workload in the list');
    expect(progress.containers[0]?.perCard.computePercent).toBe(60);
  });

  it('re-validates everything and refuses with field paths and rule ids, creating nothing', async () => {
    const name = uniqueName('bad');
    const request = seedRequest(
      name,
      { computePolicy: 'fixed-share' },
      {
        type: 'mgpu',
        multiCard: true,
        compute: '1',
        memoryGiB: '5',
        cards: 3,
      },
    );
    const refused = await ruleErrorsOf(
      harness.caller.workload.create({ request, clientRequestId: uniqueName('c'), lang: 'en' }),
    );
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors.map((error) => [error.path, error.rule])).toEqual([
      ['containers.0.gpu.compute', 'per-card-compute-precision'],
      ['containers.0.gpu.memoryGiB', 'per-card-memory-integer'],
      ['computePolicy', 'multi-card-policy'],
    ]);
    const list = await harness.caller.workload.list();
    expect(list.some((workload) => workload.name === name)).toBe(false);
  });

  it('puts a missing namespace on the namespace field', async () => {
    const refused = await ruleErrorsOf(
      harness.caller.workload.create({
        request: seedRequest(uniqueName('ns'), { namespace: 'no-such-namespace' }),
        clientRequestId: uniqueName('c'),
        lang: 'zh-CN',
      }),
    );
    expect(refused.errors).toMatchObject([{ path: 'namespace', rule: 'namespace-not-found' }]);
  });
});

describe('workload.progress and the allocation records', () => {
  it('follows the seed example to verified: 60 % on two distinct cards, as the node reports', async () => {
    const name = uniqueName('verify');
    await harness.caller.workload.create({
      request: seedRequest(name),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    const stream = await harness.caller.workload.progress({ namespace: 'default', name });
    let last: unknown;
    for await (const item of stream) {
      const progress = trackedData<WorkloadProgress>(item);
      last = progress;
      if (progress.outcome === 'verified' || progress.outcome === 'failed') break;
    }
    expect(last).toMatchObject({ outcome: 'verified', replicas: { desired: 1, ready: 1 } });
    const records = (
      last as {
        records: {
          card: number;
          compute_weight_native_burst: number | null;
          compute_weight_online: number | null;
          verification: string;
        }[];
      }
    ).records;
    expect(records).toHaveLength(2);
    expect(new Set(records.map((record) => record.card)).size).toBe(2);
    for (const record of records) {
      expect(record).toMatchObject({
        compute_weight_native_burst: 60,
        compute_weight_online: 60,
        verification: 'verified',
      });
    }

    const snapshot = harness.bff.context.allocations.snapshot({ workload: name });
    expect(snapshot).toHaveLength(2);

    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(
      () => harness.bff.context.allocations.snapshot({ workload: name }).length === 0,
      'the records to go',
    );
  });

  it('says why a workload cannot be scheduled', async () => {
    const name = uniqueName('stuck');
    const request = seedRequest(name, { replicas: 1 }, PENDING_GPU);
    await harness.caller.workload
      .create({ request, clientRequestId: uniqueName('c'), lang: 'en' })
      .catch(() => undefined);
    const stream = await harness.caller.workload.progress({ namespace: 'default', name });
    for await (const item of stream) {
      const progress = trackedData<WorkloadProgress>(item);
      if (progress.pods.some((pod) => pod.unschedulable !== null)) {
        // Waiting for a node is not a failure (issue 27): the stage is pending, the state says why.
        expect(progress.outcome).not.toBe('failed');
        expect(progress.state).toMatchObject({ state: 'pending', reason: 'unschedulable' });
        const scheduled = progress.stages.find((stage) => stage.stage === 'scheduled');
        expect(scheduled?.state).toBe('pending');
        expect(scheduled?.detail).toMatch(/nodes? (are|is) available|card/i);
        // The same reasons as codes, per node group, for the browser to word in its language.
        const rejections = progress.pods[0]?.rejections ?? [];
        expect(rejections.length).toBeGreaterThan(0);
        for (const rejection of rejections) {
          expect(rejection.code).toMatch(/^[a-z-]+$/);
          expect(rejection.nodes?.length).toBeGreaterThan(0);
        }
        break;
      }
    }
    await harness.caller.workload.delete({ namespace: 'default', name });
  });
});

describe('workload.delete', () => {
  it('refuses a Deployment the console did not make unless forced', async () => {
    const { AppsV1Api } = await import('@kubernetes/client-node');
    const apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
    const name = uniqueName('foreign');
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name, labels: { app: name } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'main', image: 'busybox' }] },
          },
        },
      },
    });
    const refused = await ruleErrorsOf(
      harness.caller.workload.delete({ namespace: 'default', name, lang: 'en' }),
    );
    expect(refused.code).toBe('PRECONDITION_FAILED');
    expect(refused.errors[0]).toMatchObject({ rule: 'not-managed' });
    expect(refused.errors[0]?.message).toContain(`default/${name}`);
    expect(refused.errors[0]?.fix).toBeTruthy();
    await expect(
      apps.readNamespacedDeployment({ namespace: 'default', name }),
    ).resolves.toBeTruthy();
    await expect(
      harness.caller.workload.delete({ namespace: 'default', name, force: true }),
    ).resolves.toMatchObject({ deleted: true });
  });
});

describe('workload.get', () => {
  it('shows what the console manages, never env values or the rest of the spec', async () => {
    const { AppsV1Api } = await import('@kubernetes/client-node');
    const apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
    const name = uniqueName('secretive');
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: {
          name,
          labels: { 'app.kubernetes.io/name': name, team: 'infra' },
          annotations: { note: 'hunter2-annotation' },
        },
        spec: {
          replicas: 0,
          selector: { matchLabels: { 'app.kubernetes.io/name': name } },
          template: {
            metadata: {
              labels: { 'app.kubernetes.io/name': name },
              annotations: { [VKE.computePolicyAnnotation]: 'fixed-share' },
            },
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'busybox',
                  env: [{ name: 'DB_PASSWORD', value: 'hunter2' }],
                  resources: { limits: { [VKE.coreResource]: '30' } },
                },
              ],
            },
          },
        },
      },
    });
    try {
      const detail = await harness.caller.workload.get({ namespace: 'default', name });
      expect(JSON.stringify(detail)).not.toContain('hunter2');
      expect(JSON.stringify(detail)).not.toContain('DB_PASSWORD');
      expect(detail.labels).toEqual({ 'app.kubernetes.io/name': name });
      expect(detail.annotations).toEqual({ [VKE.computePolicyAnnotation]: 'fixed-share' });
      expect(detail.request.name).toBe(name);
    } finally {
      await apps.deleteNamespacedDeployment({ namespace: 'default', name });
    }
  });
});

describe('workload.create retries right after a restart', () => {
  it('finds the earlier attempt from the API server while the informer has not listed yet', async () => {
    const clientRequestId = uniqueName('restart');
    const name = uniqueName('first');
    const made = await harness.caller.workload.create({
      request: seedRequest(name, { replicas: 0 }),
      clientRequestId,
      lang: 'en',
    });
    expect(made.created).toBe(true);
    // What a restarted BFF sees before its first list: an informer that knows nothing yet.
    const informer = harness.bff.context.cluster.deployments;
    const index = informer.index.bind(informer);
    informer.health.synced = false;
    informer.index = ((indexName: string, keyOf: never) => {
      const real = index(indexName, keyOf);
      return Object.assign(Object.create(real), { get: () => [] });
    }) as typeof informer.index;
    try {
      const retry = await harness.caller.workload.create({
        request: seedRequest(name, { replicas: 0 }),
        clientRequestId,
        lang: 'en',
      });
      expect(retry).toMatchObject({ created: false, uid: made.uid });
      // The same id with another name would make a second workload: refused instead.
      const other = uniqueName('second');
      const refused = await ruleErrorsOf(
        harness.caller.workload.create({
          request: seedRequest(other, { replicas: 0 }),
          clientRequestId,
          lang: 'en',
        }),
      );
      expect(refused.errors[0]).toMatchObject({ rule: 'client-request-reused' });
    } finally {
      informer.health.synced = true;
      informer.index = index;
      await harness.caller.workload.delete({ namespace: 'default', name });
    }
  });
});

describe('reserved namespaces', () => {
  it('refuses a preview and a create in a namespace the operator reserved', async () => {
    const reserving = await startHarness({ reservedNamespaces: ['team-frozen'] });
    try {
      const request = seedRequest(uniqueName('frozen'), { namespace: 'team-frozen' });
      const preview = await reserving.caller.workload.preview({ request, lang: 'en' });
      expect(preview.errors.map((error) => error.rule)).toContain('namespace-reserved');
      const refused = await ruleErrorsOf(reserving.caller.workload.create({ request, lang: 'en' }));
      expect(refused.errors.map((error) => error.rule)).toContain('namespace-reserved');
    } finally {
      await reserving.close();
    }
  });
});
