import { buildNodeStates, placePod, podDemandOf, VKE } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { generateTopology } from './generate.js';
import { loadTopology, parseTopology, topologyNodes, topologyPodObject } from './topology.js';

describe('default topology', () => {
  const topology = loadTopology();
  const nodes = topologyNodes(topology);
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const pods = topology.pods.map((pod) =>
    topologyPodObject(pod, pod.node ? byName.get(pod.node) : undefined),
  );

  it('looks like a mixed VKE cluster: several models, policies, card counts and an nvidia pool', () => {
    const labels = nodes.map((node) => node.object.metadata.labels);
    const models = new Set(labels.map((label) => label[VKE.defaultModelLabel]).filter(Boolean));
    const policies = new Set(
      labels
        .filter((label) => label[VKE.scheduleLabel] === 'mgpu')
        .map((label) => label[VKE.computePolicyLabel] ?? 'fixed-share'),
    );
    expect(models.size).toBeGreaterThanOrEqual(4);
    expect([...policies].sort()).toEqual([
      'fixed-share',
      'guaranteed-burst-share',
      'native-burst-share',
    ]);
    expect(
      new Set(topology.pools.map((pool) => pool.cardsPerNode).filter(Boolean)).size,
    ).toBeGreaterThanOrEqual(3);
    expect(labels.some((label) => label[VKE.scheduleLabel] === 'nvidia')).toBe(true);
    const l20 = nodes.find(
      (node) => node.object.metadata.labels[VKE.defaultModelLabel] === 'NVIDIA-L20',
    );
    // Spec §5: mgpu-core = 100 × cards, mgpu-memory = MiB over all cards.
    expect(l20?.object.status.allocatable[VKE.coreResource]).toBe('400');
    expect(l20?.object.status.allocatable[VKE.memoryResource]).toBe(String(4 * 46068));
  });

  it('has pre-existing pods that leave cards partly used', () => {
    const states = buildNodeStates(
      nodes.map((node) => node.object),
      pods,
    );
    const partly = states
      .flatMap((state) => state.cards)
      .filter((card) => card.usedCompute > 0 && card.usedCompute < 100);
    expect(partly.length).toBeGreaterThanOrEqual(5);
    expect(new Set(pods.map((pod) => pod.metadata.namespace))).toContain('team-a');
  });

  it('always has room for the seed example on a native-burst-share pool', () => {
    const states = buildNodeStates(
      nodes.map((node) => node.object),
      pods,
    );
    const demand = podDemandOf({
      metadata: {
        name: 'seed',
        annotations: {
          [`${VKE.multiCardAnnotationPrefix}worker`]: '2',
          [VKE.computePolicyAnnotation]: 'native-burst-share',
        },
      },
      spec: {
        containers: [
          {
            name: 'worker',
            image: 'nginx:1.27',
            resources: { limits: { [VKE.coreResource]: '120', [VKE.memoryResource]: '8192' } },
          },
        ],
      },
    });
    const result = placePod(demand, states);
    expect(result.ok).toBe(true);
  });

  it('rejects a topology whose pinned pod does not fit its node', () => {
    expect(() =>
      parseTopology(`
pools:
  - { name: a, resourceType: mgpu, model: NVIDIA-L20, cardsPerNode: 1, memoryMiBPerCard: 46068, nodes: 1 }
pods:
  - name: p
    namespace: default
    node: a-0
    containers: [{ name: main, image: nginx, gpu: { type: mgpu, compute: "0.5", memoryGiB: "4" } }]
    cards: { main: [3] }
`),
    ).toThrow(/card indexes below 1/);
  });
});

describe('generateTopology', () => {
  it('builds 1,000 nodes × 8 cards', () => {
    const nodes = topologyNodes(generateTopology({ nodes: 1000, cardsPerNode: 8 }));
    expect(nodes).toHaveLength(1000);
    expect(new Set(nodes.map((node) => node.name)).size).toBe(1000);
    expect(nodes[0]?.object.status.allocatable[VKE.coreResource]).toBe('800');
  });

  it('mixes every model and policy on request', () => {
    const topology = generateTopology({ nodes: 130, mix: 'mixed' });
    expect(topology.pools.reduce((sum, pool) => sum + pool.nodes, 0)).toBe(130);
    expect(topology.pools.some((pool) => pool.resourceType === 'nvidia')).toBe(true);
  });
});
