/**
 * Issue 17 item 6 through the BFF: a namespace's ResourceQuota on mGPU resources is shown as
 * used / limit (`cluster.quotas`), the preview reports `quota-exceeded` with the numbers, and a
 * create over it is refused with nothing created (the API server would have taken the
 * Deployment and refused its pods one by one, leaving a workload that never starts). An edit is
 * charged as the replacement of the workload's own pods, which the quota's used already counts.
 */
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { RuleErrors, workloadProgress } from '@mgpu/api';
import { QUOTA_CORE, QUOTA_MEMORY, WorkloadRequestSchema } from '@mgpu/shared';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BffHarness,
  eventually,
  ruleErrorsOf,
  seedRequest,
  startHarness,
  uniqueName,
} from './test-support/bff-harness.js';

let harness: BffHarness;
let core: CoreV1Api;
let namespace: string;

beforeAll(async () => {
  harness = await startHarness();
  core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
  namespace = uniqueName('quota');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedResourceQuota({
    namespace,
    body: {
      metadata: { name: 'gpu' },
      spec: { hard: { [QUOTA_CORE]: '100', [QUOTA_MEMORY]: '16384' } },
    },
  });
});
afterAll(async () => {
  await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
  await harness?.close();
});

describe('ResourceQuota on mGPU resources', () => {
  it('cluster.quotas shows used / limit of the namespace', async () => {
    const quotas = await eventually(async () => {
      const listed = await harness.caller.cluster.quotas({ namespace });
      return listed.length > 0 ? listed : undefined;
    }, 'the quota in the informer');
    expect(quotas).toEqual([
      {
        namespace,
        name: 'gpu',
        resources: [
          { resource: QUOTA_CORE, used: 0, limit: 100 },
          { resource: QUOTA_MEMORY, used: 0, limit: 16384 },
        ],
      },
    ]);
  });

  it('the preview counts the multi-card total against it and says the numbers and a fix', async () => {
    await eventually(
      async () => (await harness.caller.cluster.quotas({ namespace })).length > 0,
      'the quota in the informer',
    );
    // The seed: compute 1.2 on 2 cards is charged 120 (60 per card × 2), over the 100 allowed.
    const request = seedRequest(uniqueName('over'), { namespace });
    const preview = await harness.caller.workload.preview({ request, lang: 'en' });
    expect(preview.valid).toBe(false);
    const errors = preview.errors.filter((error) => error.rule === 'quota-exceeded');
    expect(errors).toEqual([
      expect.objectContaining({ path: 'containers.0.gpu.compute', rule: 'quota-exceeded' }),
    ]);
    expect(errors[0]?.message).toContain(`limits ${QUOTA_CORE} to 100 (1 card)`);
    expect(errors[0]?.message).toContain('120 (1.2 cards)');
    expect(errors[0]?.fix).toContain('at most 100 (1 card) per pod');

    const fits = await harness.caller.workload.preview({
      request: seedRequest(
        uniqueName('fits'),
        { namespace },
        {
          type: 'mgpu',
          multiCard: true,
          compute: '1',
          memoryGiB: '8',
          cards: 2,
        },
      ),
      lang: 'en',
    });
    expect(fits.errors.filter((error) => error.rule === 'quota-exceeded')).toEqual([]);
  });

  it('a create over the quota is refused and nothing is created', async () => {
    const name = uniqueName('over');
    const request = seedRequest(name, { namespace, replicas: 1 });
    let failure: unknown;
    try {
      await harness.caller.workload.create({
        request,
        clientRequestId: uniqueName('c'),
        lang: 'en',
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(TRPCError);
    const cause = (failure as TRPCError).cause;
    expect(cause).toBeInstanceOf(RuleErrors);
    expect((cause as RuleErrors).errors.map((error) => error.rule)).toContain('quota-exceeded');
    const apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
    await expect(apps.readNamespacedDeployment({ namespace, name })).rejects.toMatchObject({
      code: 404,
    });
  });
  it('an edit of a workload that fills the quota is charged without its own pods', async () => {
    const full = uniqueName('quota-full');
    await core.createNamespace({ body: { metadata: { name: full } } });
    try {
      await core.createNamespacedResourceQuota({
        namespace: full,
        body: {
          metadata: { name: 'gpu' },
          spec: { hard: { [QUOTA_CORE]: '100', [QUOTA_MEMORY]: '8192' } },
        },
      });
      // Compute 1 on 2 cards with 8 GiB is charged 100 and 8192: the quota exactly.
      const name = uniqueName('fills');
      const gpu = {
        type: 'mgpu',
        multiCard: true,
        compute: '1',
        memoryGiB: '8',
        cards: 2,
      } as const;
      const ask = (compute: string) =>
        WorkloadRequestSchema.parse(
          seedRequest(name, { namespace: full, kind: 'StatefulSet' }, { ...gpu, compute }),
        );
      await harness.caller.workload.create({ request: ask('1'), lang: 'en' });
      const usedCore = async () =>
        (await harness.caller.cluster.quotas({ namespace: full }))[0]?.resources.find(
          (resource) => resource.resource === QUOTA_CORE,
        )?.used;
      const ownPodSeen = () =>
        harness.bff.context.cluster.pods
          .list()
          .some((pod) => pod.metadata?.namespace === full && pod.spec?.nodeName);
      await eventually(
        async () => (await usedCore()) === 100 && ownPodSeen(),
        'the quota filled by the workload',
      );
      const quotaErrors = (errors: readonly { rule: string; path: string }[]) =>
        errors.filter((error) => error.rule === 'quota-exceeded');

      // Beside itself it would not fit; in place of its own pod it does.
      const beside = await harness.caller.workload.preview({ request: ask('1'), lang: 'en' });
      expect(quotaErrors(beside.errors).map((error) => error.path)).toEqual([
        'containers.0.gpu.compute',
        'containers.0.gpu.memoryGiB',
      ]);
      const same = await harness.caller.workload.preview({
        request: ask('1'),
        lang: 'en',
        replacing: { namespace: full, name },
      });
      expect(quotaErrors(same.errors)).toEqual([]);

      const live = await harness.caller.workload.get({ namespace: full, name });
      const smaller = await harness.caller.workload.update({
        namespace: full,
        name,
        resourceVersion: live.resourceVersion,
        request: ask('0.8'),
        lang: 'en',
      });
      expect(smaller.changes).toEqual([
        { path: 'containers.0.gpu.compute', before: '1', after: '0.8' },
      ]);
      // The StatefulSet replaces its pod: the quota is charged the edited 80.
      await eventually(async () => (await usedCore()) === 80, 'the edited pod charged');

      const edited = await harness.caller.workload.get({ namespace: full, name });
      const larger = await ruleErrorsOf(
        harness.caller.workload.update({
          namespace: full,
          name,
          resourceVersion: edited.resourceVersion,
          request: ask('1.2'),
          lang: 'en',
        }),
      );
      expect(larger.code).toBe('BAD_REQUEST');
      expect(quotaErrors(larger.errors)).toEqual([
        expect.objectContaining({ path: 'containers.0.gpu.compute', rule: 'quota-exceeded' }),
      ]);
      const after = await harness.caller.workload.get({ namespace: full, name });
      expect(after.request.containers[0]?.gpu?.compute).toBe('0.8');
      // Its controller's status writes move the resourceVersion on; the spec stays as it was.
      expect(after.request).toEqual(edited.request);
    } finally {
      await core.deleteNamespace({ name: full }).catch(() => undefined);
    }
  });
});

describe("an edit's rolling update within the quota", () => {
  it('refuses an edit that fits once rolled out but not beside the surge pod, and says how', async () => {
    const tight = uniqueName('quota-surge');
    await core.createNamespace({ body: { metadata: { name: tight } } });
    try {
      await core.createNamespacedResourceQuota({
        namespace: tight,
        body: { metadata: { name: 'gpu' }, spec: { hard: { [QUOTA_CORE]: '200' } } },
      });
      const name = uniqueName('surge');
      const gpu = { type: 'mgpu', multiCard: true, memoryGiB: '8', cards: 2 } as const;
      const ask = (compute: string) =>
        WorkloadRequestSchema.parse(seedRequest(name, { namespace: tight }, { ...gpu, compute }));
      // One replica of compute 1 (100 of 200); maxSurge 25 % of 1 rounds up to one surge pod.
      await harness.caller.workload.create({ request: ask('1'), lang: 'en' });
      await eventually(
        async () =>
          (await harness.caller.cluster.quotas({ namespace: tight }))[0]?.resources[0]?.used ===
            100 &&
          harness.bff.context.cluster.pods
            .list()
            .some((pod) => pod.metadata?.namespace === tight && pod.spec?.nodeName),
        'the old pod charged',
      );
      // 120 fits the 200 once rolled out, but the old pod's 100 stays charged beside it.
      const preview = await harness.caller.workload.preview({
        request: ask('1.2'),
        lang: 'en',
        replacing: { namespace: tight, name },
      });
      expect(preview.errors.filter((error) => error.rule === 'quota-exceeded')).toEqual([
        expect.objectContaining({
          path: 'containers.0.gpu.compute',
          fix:
            "Lower the Deployment's spec.strategy.rollingUpdate.maxSurge to 0 (with maxUnavailable at least 1), or have the quota raised (kubectl describe resourcequota gpu -n " +
            `${tight}).`,
        }),
      ]);
      const live = await harness.caller.workload.get({ namespace: tight, name });
      const refused = await ruleErrorsOf(
        harness.caller.workload.update({
          namespace: tight,
          name,
          resourceVersion: live.resourceVersion,
          request: ask('1.2'),
          lang: 'en',
        }),
      );
      expect(refused.code).toBe('BAD_REQUEST');
      expect(refused.errors.map((error) => error.rule)).toEqual(['quota-exceeded']);
      expect(refused.errors[0]?.message).toContain('220 (2.2 cards) is charged at its peak');
      // Nothing changed; an edit whose peak fits (0.9 beside the old 1.0) is taken.
      expect(
        (await harness.caller.workload.get({ namespace: tight, name })).request.containers[0]?.gpu
          ?.compute,
      ).toBe('1');
      const fits = await harness.caller.workload.update({
        namespace: tight,
        name,
        resourceVersion: live.resourceVersion,
        request: ask('0.9'),
        lang: 'en',
      });
      expect(fits.changes.map((change) => change.path)).toEqual(['containers.0.gpu.compute']);
    } finally {
      await core.deleteNamespace({ name: tight }).catch(() => undefined);
    }
  });
});

describe('the rollout view of workload.progress', () => {
  it('shows an edit rolling from old to new pods, and a scale-up the quota refuses as stalled', async () => {
    const ns = uniqueName('quota-rollout');
    await core.createNamespace({ body: { metadata: { name: ns } } });
    try {
      await core.createNamespacedResourceQuota({
        namespace: ns,
        body: { metadata: { name: 'gpu' }, spec: { hard: { [QUOTA_CORE]: '100' } } },
      });
      const name = uniqueName('rolls');
      const gpu = { type: 'mgpu', multiCard: true, memoryGiB: '8', cards: 2 } as const;
      const ask = (compute: string, replicas = 1) =>
        WorkloadRequestSchema.parse(
          seedRequest(name, { namespace: ns, kind: 'StatefulSet', replicas }, { ...gpu, compute }),
        );
      await harness.caller.workload.create({ request: ask('1'), lang: 'en' });
      const progress = () => workloadProgress(harness.bff.context, ns, name);
      const first = await eventually(
        () => (progress().rollout?.state === 'complete' ? progress().rollout : undefined),
        'the first pod rolled out',
      );
      expect(first).toMatchObject({ desired: 1, updated: 1, oldPods: [] });

      const live = await harness.caller.workload.get({ namespace: ns, name });
      await harness.caller.workload.update({
        namespace: ns,
        name,
        resourceVersion: live.resourceVersion,
        request: ask('0.8'),
        lang: 'en',
      });
      // The StatefulSet replaces its pod: once done, the one pod is of the new revision.
      const edited = await eventually(() => {
        const rollout = progress().rollout;
        return rollout?.state === 'complete' &&
          progress().pods.every((pod) => pod.node !== null) &&
          progress().records.every((record) => record.compute_weight_native_burst === 40)
          ? rollout
          : undefined;
      }, 'the edited pod rolled out');
      expect(edited).toMatchObject({ newPods: [`${name}-0`], oldPods: [], updated: 1 });

      // 80 of 100 used: a second pod of 80 is refused by the quota, the rollout says so.
      await harness.caller.workload.scale({ namespace: ns, name, replicas: 2, lang: 'en' });
      const stalled = await eventually(
        () => (progress().rollout?.state === 'stalled' ? progress().rollout : undefined),
        'the scale-up stalled on the quota',
      );
      expect(stalled).toMatchObject({ desired: 2, updated: 1, stall: 'quota-refused' });
    } finally {
      await core.deleteNamespace({ name: ns }).catch(() => undefined);
    }
  });
});
