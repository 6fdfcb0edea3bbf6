import { AppsV1Api, CoreV1Api, type V1Deployment } from '@kubernetes/client-node';
import { type AllocationRecord, WorkloadRequestSchema } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  ruleErrorsOf,
  SEED_GPU,
  seedRequest,
  startBffTest,
  uniqueName,
  withCompute,
} from './test-support/bff-harness.js';

const harness = startBffTest();

const recordsOf = (name: string): AllocationRecord[] =>
  harness.bff.context.allocations.snapshot({ namespace: 'default', workload: name });

/** The workload's records once every pod it should have is placed and reported as asked. */
const verifiedRecords = (name: string, instances: number, computePercent: number) =>
  eventually(() => {
    const records = recordsOf(name);
    return records.length === instances &&
      records.every(
        (record) =>
          record.compute_weight_native_burst === computePercent &&
          record.verification === 'verified',
      )
      ? records
      : undefined;
  }, `${instances} verified instances of ${name} at ${computePercent} %`);

describe('workload lifecycle: list, update, conflict, scale (spec §8)', () => {
  it('lists the seed example, edits it to 1.6 over 2 cards, refuses a stale resourceVersion and scales it', async () => {
    const name = uniqueName('edit');
    await harness.caller.workload.create({ request: seedRequest(name), lang: 'en' });
    await verifiedRecords(name, 2, 60);
    const oldPods = new Set(recordsOf(name).map((record) => record.pod));

    const listed = await eventually(
      async () =>
        (await harness.caller.workload.list()).find(
          (item) => item.name === name && item.verification === 'verified',
        ),
      'the workload to be listed as verified',
    );
    expect(listed).toMatchObject({
      kind: 'Deployment',
      namespace: 'default',
      replicas: 1,
      computePolicy: 'native-burst-share',
      managedByConsole: true,
      containers: [{ name: 'worker', cards: 2, perCard: { computePercent: 60, memoryMiB: 4096 } }],
    });

    const live = await harness.caller.workload.get({ namespace: 'default', name });
    const edited = withCompute(live.request, '1.6');
    const updated = await harness.caller.workload.update({
      namespace: 'default',
      name,
      resourceVersion: live.resourceVersion,
      request: edited,
      lang: 'en',
    });
    expect(updated.changes).toEqual([
      { path: 'containers.0.gpu.compute', before: '1.2', after: '1.6' },
    ]);
    expect(updated.resourceVersion).not.toBe(live.resourceVersion);

    // The rolling update replaces the pod: 80 on two cards, the old pod's records gone.
    const records = await verifiedRecords(name, 2, 80);
    expect(new Set(records.map((record) => record.card)).size).toBe(2);
    for (const record of records) expect(oldPods.has(record.pod)).toBe(false);

    // A second edit from the form's first read is stale: conflict (409), and nothing changes.
    const refused = await ruleErrorsOf(
      harness.caller.workload.update({
        namespace: 'default',
        name,
        resourceVersion: live.resourceVersion,
        request: withCompute(live.request, '1.4'),
        lang: 'zh-CN',
      }),
    );
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict' }]);
    expect(refused.errors[0]?.fix).toBeTruthy();
    const after = await harness.caller.workload.get({ namespace: 'default', name });
    expect(after.request.containers[0]?.gpu?.compute).toBe('1.6');

    const scaled = await harness.caller.workload.scale({ namespace: 'default', name, replicas: 2 });
    expect(scaled).toMatchObject({ kind: 'Deployment', replicas: 2 });
    await verifiedRecords(name, 4, 80);

    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(() => recordsOf(name).length === 0, 'the records to go');
  });

  it("keeps everything of someone else's Deployment that the form does not manage", async () => {
    const name = uniqueName('foreign');
    const apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
    const body: V1Deployment = {
      metadata: { name, namespace: 'default', labels: { team: 'vision', app: name } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: {
            labels: { app: name },
            annotations: {
              'vke.volcengine.com/multiple-mgpu-worker': '2',
              'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
              'prometheus.io/scrape': 'true',
            },
          },
          spec: {
            containers: [
              {
                name: 'worker',
                image: 'nginx:1.27',
                env: [{ name: 'MODE', value: 'train' }],
                resources: {
                  requests: {
                    cpu: '1',
                    'vke.volcengine.com/mgpu-core': '120',
                    'vke.volcengine.com/mgpu-memory': '8192',
                  },
                  limits: {
                    cpu: '2',
                    'vke.volcengine.com/mgpu-core': '120',
                    'vke.volcengine.com/mgpu-memory': '8192',
                  },
                },
              },
              {
                name: 'sidecar',
                image: 'busybox:1.36',
                resources: { requests: { cpu: '100m' } },
              },
            ],
          },
        },
      },
    };
    await apps.createNamespacedDeployment({ namespace: 'default', body });
    // Until it has rolled out, its controller moves the resourceVersion on (an edit would conflict).
    await verifiedRecords(name, 2, 60);
    const live = await harness.caller.workload.get({ namespace: 'default', name });
    expect(live.managedByConsole).toBe(false);
    await harness.caller.workload.update({
      namespace: 'default',
      name,
      resourceVersion: live.resourceVersion,
      request: withCompute(live.request, '1.6'),
      // Not the console's: the operator confirmed the edit (rule not-managed otherwise).
      force: true,
      lang: 'en',
    });
    const stored = await apps.readNamespacedDeployment({ namespace: 'default', name });
    expect(stored.metadata?.labels).toEqual({ team: 'vision', app: name });
    expect(stored.spec?.template.metadata?.annotations?.['prometheus.io/scrape']).toBe('true');
    const [worker, sidecar] = stored.spec?.template.spec?.containers ?? [];
    expect(worker?.env).toEqual([{ name: 'MODE', value: 'train' }]);
    expect(worker?.resources?.requests).toEqual({
      cpu: '1',
      'vke.volcengine.com/mgpu-core': '160',
      'vke.volcengine.com/mgpu-memory': '8192',
    });
    expect(worker?.resources?.limits?.cpu).toBe('2');
    expect(sidecar).toMatchObject({ name: 'sidecar', resources: { requests: { cpu: '100m' } } });
    await harness.caller.workload.delete({ namespace: 'default', name, force: true });
    await eventually(() => recordsOf(name).length === 0, 'the records to go');
  });

  it('says what the form cannot express: kept fields, and a model requirement it would rewrite', async () => {
    const name = uniqueName('unround');
    const apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
    const modelLabel = harness.bff.context.modelLabel;
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name, namespace: 'default' },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
              affinity: {
                nodeAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                      {
                        matchExpressions: [
                          { key: modelLabel, operator: 'NotIn', values: ['NVIDIA-A10'] },
                        ],
                      },
                    ],
                  },
                },
              },
              containers: [
                {
                  name: 'worker',
                  image: 'nginx:1.27',
                  env: [{ name: 'API_KEY', value: 'not-for-the-browser' }],
                  resources: { limits: { 'vke.volcengine.com/mgpu-core': '50' } },
                },
              ],
            },
          },
        },
      },
    });
    try {
      const detail = await harness.caller.workload.get({ namespace: 'default', name });
      expect(detail.unexpressed).toEqual([
        { path: 'spec.template.spec.tolerations', reason: 'pod-field', kept: true },
        {
          path: 'spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]',
          reason: 'model-requirement',
          kept: false,
        },
        { path: 'spec.template.spec.containers[0].env', reason: 'container-field', kept: true },
      ]);
      // The YAML the edit form diffs holds the form's fields, never the env values.
      expect(JSON.stringify(detail.manifest)).not.toContain('not-for-the-browser');
      expect(detail.manifest).toMatchObject({
        spec: { template: { spec: { containers: [{ name: 'worker', image: 'nginx:1.27' }] } } },
      });
    } finally {
      await apps.deleteNamespacedDeployment({ namespace: 'default', name });
    }
    await eventually(() => recordsOf(name).length === 0, 'the records to go');
  });

  it('creates a StatefulSet with its headless Service and a Job, and follows their pods', async () => {
    const set = uniqueName('sts');
    const created = await harness.caller.workload.create({
      request: seedRequest(set, { kind: 'StatefulSet' }),
      lang: 'en',
    });
    expect(created.kind).toBe('StatefulSet');
    const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
    const service = await core.readNamespacedService({ namespace: 'default', name: set });
    expect(service.spec?.clusterIP).toBe('None');
    await verifiedRecords(set, 2, 60);
    expect(recordsOf(set)[0]?.pod).toBe(`${set}-0`);

    const job = uniqueName('job');
    const request = WorkloadRequestSchema.parse(seedRequest(job, { kind: 'Job', replicas: 1 }));
    await harness.caller.workload.create({ request, lang: 'en' });
    await verifiedRecords(job, 2, 60);
    const listed = await harness.caller.workload.list();
    expect(listed.find((item) => item.name === set)).toMatchObject({ kind: 'StatefulSet' });
    expect(listed.find((item) => item.name === job)).toMatchObject({ kind: 'Job', replicas: 1 });

    // A Job keeps its pod template: only its parallelism may change.
    const live = await harness.caller.workload.get({ namespace: 'default', name: job });
    const refused = await ruleErrorsOf(
      harness.caller.workload.update({
        namespace: 'default',
        name: job,
        resourceVersion: live.resourceVersion,
        request: withCompute(live.request, '1.6'),
        lang: 'en',
      }),
    );
    expect(refused.errors).toMatchObject([
      { rule: 'immutable-field', path: 'containers.0.gpu.compute' },
    ]);
    await harness.caller.workload.scale({ namespace: 'default', name: job, replicas: 0 });
    await eventually(() => recordsOf(job).length === 0, 'the Job to run no pod');

    await harness.caller.workload.delete({ namespace: 'default', name: set });
    await harness.caller.workload.delete({ namespace: 'default', name: job });
    await eventually(
      () => recordsOf(set).length === 0 && recordsOf(job).length === 0,
      'the StatefulSet and Job records to go',
    );
  });

  it('previews an edit with the cards of the pods it replaces given back', async () => {
    // a100-nbs-0 (8 cards) has a job on cards 0–3 at 80 %: an 8-card container fits at 10 % a
    // card, and at 20 % only once its own 10 % are freed (a StatefulSet replaces pod by pod).
    const name = uniqueName('room');
    deleteAfterTest(harness, name);
    const gpu = { ...SEED_GPU, cards: 8, compute: '0.8', model: 'NVIDIA-A100-SXM4-80GB' };
    await harness.caller.workload.create({
      request: seedRequest(name, { kind: 'StatefulSet' }, gpu),
      lang: 'en',
    });
    await verifiedRecords(name, 8, 10);
    const edited = WorkloadRequestSchema.parse(
      seedRequest(name, { kind: 'StatefulSet' }, { ...gpu, compute: '1.6' }),
    );
    const beside = await harness.caller.workload.preview({ request: edited, lang: 'en' });
    expect(beside.placement.replicas[0]?.ok).toBe(false);
    const replacing = await harness.caller.workload.preview({
      request: edited,
      lang: 'en',
      replacing: { namespace: 'default', name },
    });
    expect(replacing.placement.replicas[0]).toMatchObject({ ok: true, node: 'a100-nbs-0' });
    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(() => recordsOf(name).length === 0, 'the records to go');
  });

  it('previews a Deployment edit as its rolling update runs: new pods beside the old it keeps', async () => {
    // Two replicas at 10 % on each of a100-nbs-0's 8 cards fill cards 0–3 (its job holds 80 %).
    // With the defaults for 2 replicas (maxSurge 1, maxUnavailable 0) the first new pod must
    // fit beside both old ones, so any change of the template waits at replica 1.
    const name = uniqueName('surge');
    deleteAfterTest(harness, name);
    const gpu = { ...SEED_GPU, cards: 8, compute: '0.8', model: 'NVIDIA-A100-SXM4-80GB' };
    await harness.caller.workload.create({
      request: seedRequest(name, { replicas: 2 }, gpu),
      lang: 'en',
    });
    await verifiedRecords(name, 16, 10);
    const edited = WorkloadRequestSchema.parse(
      seedRequest(name, { replicas: 2 }, { ...gpu, memoryGiB: '16' }),
    );
    const preview = await harness.caller.workload.preview({
      request: edited,
      lang: 'en',
      replacing: { namespace: 'default', name },
    });
    expect(preview.placement.replicas[0]?.ok).toBe(false);
    expect(preview.verdict).toMatchObject({ verdict: 'waiting', firstWaiting: 1, waitingCount: 2 });
    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(() => recordsOf(name).length === 0, 'the records to go');
  });
});
