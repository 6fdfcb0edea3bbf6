import { CoreV1Api } from '@kubernetes/client-node';
import { VKE, type WorkloadProgress } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  PENDING_GPU,
  ruleErrorsOf,
  SEED_GPU,
  seedRequest,
  startBffTest,
  startHarness,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();

describe('cluster.summary and gpu.models', () => {
  it('shows a native-burst-share pool with room, and every model with its card shape', async () => {
    const summary = await harness.caller.cluster.summary();
    expect(summary.version).toMatch(/^v1\.\d+/);
    const nbs = summary.pools.filter(
      (pool) => pool.policy === 'native-burst-share' && pool.resourceType === 'mgpu',
    );
    expect(nbs.length).toBeGreaterThan(0);
    expect(nbs.some((pool) => pool.compute.allocated < pool.compute.allocatable)).toBe(true);
    for (const pool of nbs) {
      expect(pool.largestFit.computePercent).toBeGreaterThanOrEqual(120);
      expect(pool.stranded.cards).toBeLessThanOrEqual(pool.cards);
      expect(pool.stranded.computePercent).toBeLessThanOrEqual(
        pool.compute.allocatable - pool.compute.allocated,
      );
    }
    const models = await harness.caller.gpu.models();
    expect(models.map((model) => model.model)).toEqual(
      [...new Set(summary.pools.map((pool) => pool.model))].sort(),
    );
    for (const model of models) expect(model.cardsPerNode).toBeGreaterThan(0);
  });
});

describe('cluster.nodes', () => {
  it('shows each card with its holders and their shares', async () => {
    const nodes = await harness.caller.cluster.nodes();
    const held = nodes.flatMap((node) => node.cards).filter((card) => card.holders.length > 0);
    expect(held.length).toBeGreaterThan(0);
    for (const card of held) {
      const share = card.holders.reduce((sum, holder) => sum + holder.computePercent, 0);
      expect(share).toBe(card.usedCompute);
    }
    const one = nodes[0];
    if (one) {
      const only = await harness.caller.cluster.nodes({ node: one.name });
      expect(only.map((node) => node.name)).toEqual([one.name]);
    }
  });
});

describe('cluster.layout', () => {
  it("gives every GPU node of cluster.nodes in name order, with its cards' shape and no usage", async () => {
    const [layout, nodes] = await Promise.all([
      harness.caller.cluster.layout(),
      harness.caller.cluster.nodes(),
    ]);
    expect(layout.map((node) => node.name)).toEqual(
      nodes.map((node) => node.name).sort((a, b) => (a < b ? -1 : 1)),
    );
    for (const node of layout) {
      const full = nodes.find((candidate) => candidate.name === node.name);
      expect(node).toEqual({
        name: full?.name,
        pool: full?.pool,
        model: full?.model,
        policy: full?.policy,
        resourceType: full?.resourceType,
        schedulable: full?.schedulable,
        memoryMiBPerCard: full?.memoryMiBPerCard,
        cards: full?.cards.map((card) => ({ index: card.index, wholeNvidia: card.wholeNvidia })),
      });
    }
  });
});

describe('workload.preview', () => {
  it('places the seed example on two distinct cards of one native-burst-share node', async () => {
    const preview = await harness.caller.workload.preview({
      request: seedRequest(uniqueName('preview')),
      lang: 'en',
    });
    expect(preview.valid).toBe(true);
    expect(preview.containers[0]?.perCard).toEqual({ computePercent: 60, memoryMiB: 4096 });
    const [replica] = preview.placement.replicas;
    expect(replica?.ok).toBe(true);
    if (replica?.ok) {
      const cards = replica.cards?.worker ?? [];
      expect(cards).toHaveLength(2);
      expect(new Set(cards).size).toBe(2);
    }
  });

  it('books each previewed replica for the next one, and leaves the cluster view as it found it', async () => {
    // Three replicas of 0.6 compute on 2 cards each: no card may be given more than 100 %.
    const request = seedRequest(uniqueName('replicas'), { replicas: 3 });
    const first = await harness.caller.workload.preview({ request, lang: 'en' });
    const taken = new Map<string, number>();
    for (const replica of first.placement.replicas) {
      if (!replica.ok) continue;
      for (const card of replica.cards?.worker ?? []) {
        const key = `${replica.node}/${card}`;
        taken.set(key, (taken.get(key) ?? 0) + 60);
      }
    }
    expect(taken.size).toBeGreaterThan(0);
    for (const used of taken.values()) expect(used).toBeLessThanOrEqual(100);
    // A preview books nothing for real: asked again, the same answer.
    const again = await harness.caller.workload.preview({ request, lang: 'en' });
    expect(again.placement).toEqual(first.placement);
  });

  it('says why the other nodes would not take a replica that fits, in codes and per node group', async () => {
    const preview = await harness.caller.workload.preview({
      request: seedRequest(uniqueName('preview')),
      lang: 'zh-CN',
    });
    const [replica] = preview.placement.replicas;
    if (!replica?.ok) throw new Error('expected the seed example to fit');
    const { nodes } = await harness.caller.cluster.summary();
    const named = replica.rejections.flatMap((rejection) => rejection.nodes ?? []);
    expect(named.length + (replica.fitting ?? Number.NaN)).toBe(nodes);
    expect(named).not.toContain(replica.node);
    // The seed asks for multi-card sharing on an NVIDIA-L20: the L20 pool without a policy label
    // (fixed-share) is out for its policy, other models for their model.
    expect(replica.rejections).toContainEqual(
      expect.objectContaining({
        group: 'NVIDIA-L20/fixed-share',
        reason: 'policy',
        code: 'policy-multi-card',
        params: { nodePolicy: 'fixed-share' },
      }),
    );
    const byGroup = new Map(replica.rejections.map((rejection) => [rejection.group, rejection]));
    expect(byGroup.get('Tesla-V100/guaranteed-burst-share')?.reason).toMatch(/policy|model/);
    for (const rejection of replica.rejections) expect(rejection.message).not.toBe('');
  });

  it('reports the cluster-aware rules and why no node would take an impossible request', async () => {
    const unknownModel = seedRequest(
      uniqueName('preview'),
      {},
      { ...SEED_GPU, model: 'NVIDIA-H999' },
    );
    const preview = await harness.caller.workload.preview({ request: unknownModel, lang: 'zh-CN' });
    expect(preview.errors.map((error) => [error.path, error.rule])).toEqual([
      ['containers.0.gpu.model', 'model-unknown'],
    ]);
    expect(preview.errors[0]?.message).toContain('显卡类型');

    const tooBig = seedRequest(
      uniqueName('preview'),
      { computePolicy: 'fixed-share' },
      {
        type: 'mgpu',
        multiCard: false,
        compute: '0.5',
        memoryGiB: '70',
        model: 'NVIDIA-L20',
      },
    );
    const refused = await harness.caller.workload.preview({ request: tooBig, lang: 'en' });
    expect(refused.errors.map((error) => error.rule)).toContain('per-card-memory-exceeds-model');
  });
});

describe('a cluster that names GPU models with another node label (--model-label)', () => {
  it('reads models from that label, pins manifests with it and places on the node it names', async () => {
    const modelLabel = 'example.com/gpu-product';
    const model = 'L40S-RELABELLED';
    const relabelled = await startHarness({ modelLabel });
    const core = relabelled.adminKubeConfig.makeApiClient(CoreV1Api);
    const nodeName = uniqueName('relabelled-node');
    try {
      // A node like one of the native-burst-share pool's, named by the other label only.
      const template = (await core.listNode()).items.find(
        (node) => node.metadata?.labels?.[VKE.computePolicyLabel] === 'native-burst-share',
      );
      if (template === undefined) throw new Error('no native-burst-share node to copy');
      const labels: Record<string, string> = { ...template.metadata?.labels, [modelLabel]: model };
      delete labels[VKE.defaultModelLabel];
      await core.createNode({
        body: {
          metadata: { name: nodeName, labels },
          status: {
            capacity: template.status?.capacity,
            allocatable: template.status?.allocatable,
          },
        },
      });
      const models = await eventually(async () => {
        const listed = await relabelled.caller.gpu.models();
        return listed.some((entry) => entry.model === model) ? listed : undefined;
      }, 'the relabelled model');
      expect(models.find((entry) => entry.model === model)?.policies).toContain(
        'native-burst-share',
      );

      const name = uniqueName('relabelled');
      const preview = await relabelled.caller.workload.preview({
        request: seedRequest(name, {}, { ...SEED_GPU, model }),
        lang: 'en',
      });
      expect(preview.errors).toEqual([]);
      expect(JSON.stringify(preview.manifest)).toContain(`"key":"${modelLabel}"`);
      expect(JSON.stringify(preview.manifest)).not.toContain(VKE.defaultModelLabel);
      expect(preview.placement.replicas[0]).toMatchObject({ ok: true, node: nodeName });
    } finally {
      await core.deleteNode({ name: nodeName }).catch(() => undefined);
      await relabelled.close();
    }
  });
});

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
      if (progress.outcome === 'failed') {
        const scheduled = progress.stages.find((stage) => stage.stage === 'scheduled');
        expect(scheduled?.state).toBe('failed');
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
