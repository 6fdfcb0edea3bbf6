/** The router's cluster views and workload.preview, called in-process against the embedded cluster. */
import { CoreV1Api } from '@kubernetes/client-node';
import { VKE } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  SEED_GPU,
  seedRequest,
  startBffTest,
  startHarness,
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
