import { describe, expect, it } from 'vitest';
import {
  kubeNode,
  mgpu,
  type NodeSpec,
  node,
  nvidia,
  place,
  pod,
} from '../test-support/placement.js';
import { MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import { podDemandOf } from './demand.js';
import { buildNodeStates } from './node-state.js';
import { describeRejections, placePod } from './place-pod.js';
import { REJECTION_CODES, REJECTION_REASON, rejectionMessage } from './rejections.js';
import type { PodDemand } from './types.js';

const seedPod = pod([mgpu('worker', 60, 4096, 2)], {
  policy: 'native-burst-share',
  model: 'NVIDIA-L20',
});

describe('placePod: node layer', () => {
  it('places the seed example (1.2 on 2 cards, 8 GiB) on two distinct cards of a native-burst-share node', () => {
    const nodes = [
      node({ name: 'l20-fixed', policy: 'fixed-share' }),
      node({ name: 'l20-nbs', policy: 'native-burst-share' }),
    ];
    const result = placePod(seedPod, nodes);
    expect(result).toMatchObject({ ok: true, node: 'l20-nbs', cards: { worker: [0, 1] } });
  });

  const rejectionCases: {
    title: string;
    demand: PodDemand;
    nodes: NodeSpec[];
    reason: string;
    message: RegExp;
  }[] = [
    {
      title: 'a fractional pod onto a pool of another policy',
      demand: pod([mgpu('w', 50, 2048)], { policy: 'guaranteed-burst-share' }),
      nodes: [{ name: 'a', policy: 'fixed-share' }],
      reason: 'policy',
      message: /policy fixed-share does not match guaranteed-burst-share/,
    },
    {
      title: 'a multi-card pod onto a fixed-share node',
      demand: seedPod,
      nodes: [{ name: 'a' }],
      reason: 'policy',
      message: /does not match native-burst-share/,
    },
    {
      title: 'a multi-card pod without native-burst-share itself',
      demand: pod([mgpu('w', 60, 4096, 2)], { policy: 'fixed-share' }),
      nodes: [{ name: 'a', policy: 'native-burst-share' }],
      reason: 'policy',
      message: /needs pod policy native-burst-share/,
    },
    {
      title: 'the wrong GPU model',
      demand: { ...seedPod, model: 'Tesla-V100' },
      nodes: [{ name: 'a', policy: 'native-burst-share' }],
      reason: 'model',
      message: /GPU model NVIDIA-L20 is not Tesla-V100/,
    },
    {
      title: 'an mGPU pod onto an nvidia node',
      demand: pod([mgpu('w', 50, 2048)]),
      nodes: [{ name: 'a', type: 'nvidia' }],
      reason: 'resource-type',
      message: /resource type nvidia does not match mgpu/,
    },
    {
      title: 'a GPU pod onto a node without GPUs',
      demand: pod([nvidia('w', 1)]),
      nodes: [{ name: 'a', type: 'none' }],
      reason: 'resource-type',
      message: /no GPUs/,
    },
    {
      title: 'more cards than the node has',
      demand: pod([mgpu('w', 10, 1024, 4)], { policy: 'native-burst-share' }),
      nodes: [{ name: 'a', policy: 'native-burst-share', cards: 2 }],
      reason: 'cards',
      message: /needs 4 cards, nodes have 2/,
    },
    {
      title: 'more memory than a card has',
      demand: pod([mgpu('w', 10, 50000)]),
      nodes: [{ name: 'a', cards: 2 }],
      reason: 'memory',
      message: /50000 MiB free/,
    },
  ];
  it.each(rejectionCases)(
    'rejects $title, naming the constraint',
    ({ demand, nodes, reason, message }) => {
      const result = placePod(demand, nodes.map(node));
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.rejections[0]?.reason).toBe(reason);
      expect(result.rejections[0]?.message).toMatch(message);
    },
  );

  it('lets whole-card pods skip the policy match', () => {
    const result = placePod(
      pod([mgpu('w', 100, null, 2, false)], { policy: 'native-burst-share' }),
      [node({ name: 'a', policy: 'fixed-share' })],
    );
    expect(result).toMatchObject({ ok: true, cards: { w: [0, 1] } });
  });

  it('explains per node group, largest group first', () => {
    const nodes = [
      ...['f1', 'f2', 'f3'].map((name) => node({ name, policy: 'fixed-share' })),
      node({ name: 'v1', type: 'nvidia', model: 'Tesla-V100' }),
      node({ name: 'n1', policy: 'native-burst-share', cards: 1 }),
    ];
    const result = placePod(seedPod, nodes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(
      result.rejections.map((rejection) => [rejection.group, rejection.reason, rejection.nodes]),
    ).toEqual([
      ['NVIDIA-L20/fixed-share', 'policy', ['f1', 'f2', 'f3']],
      ['NVIDIA-L20/native-burst-share', 'cards', ['n1']],
      ['Tesla-V100/nvidia', 'resource-type', ['v1']],
    ]);
    expect(describeRejections(result)).toMatch(
      /^0\/5 nodes are available: 3 NVIDIA-L20\/fixed-share: policy fixed-share does not match native-burst-share/,
    );
    // Without node lists and total (withheld, spec §8) the same groups, uncounted.
    const withheld = result.rejections.map(({ nodes: _, ...rest }) => rest);
    expect(describeRejections({ rejections: withheld })).toMatch(
      /^No node is available: NVIDIA-L20\/fixed-share: policy fixed-share does not match native-burst-share/,
    );
  });

  it('says why not the others when a node fits, only when asked', () => {
    const nodes = [
      ...['f1', 'f2', 'f3'].map((name) => node({ name, policy: 'fixed-share' })),
      node({ name: 'v1', type: 'nvidia', model: 'Tesla-V100' }),
      node({ name: 'n1', policy: 'native-burst-share', cards: 1 }),
      node({ name: 'n2', policy: 'native-burst-share' }),
      node({ name: 'n3', policy: 'native-burst-share' }),
    ];
    const result = placePod(seedPod, nodes, { explainRejected: true });
    expect(result).toMatchObject({ ok: true, node: 'n2', cards: { worker: [0, 1] }, fitting: 2 });
    if (!result.ok) return;
    expect(
      result.rejections?.map((rejection) => [
        rejection.group,
        rejection.reason,
        rejection.code,
        rejection.params,
        rejection.nodes,
      ]),
    ).toEqual([
      [
        'NVIDIA-L20/fixed-share',
        'policy',
        'policy-multi-card',
        { nodePolicy: 'fixed-share' },
        ['f1', 'f2', 'f3'],
      ],
      [
        'NVIDIA-L20/native-burst-share',
        'cards',
        'cards',
        { container: 'worker', cards: 2, nodeCards: 1 },
        ['n1'],
      ],
      [
        'Tesla-V100/nvidia',
        'resource-type',
        'resource-type',
        { nodeType: 'nvidia', podTypes: 'mgpu' },
        ['v1'],
      ],
    ]);
    // The scheduler does not ask: its placements carry no explanation to pay for.
    const plain = placePod(seedPod, nodes);
    expect(plain).toEqual({ ok: true, node: 'n2', cards: { worker: [0, 1] }, score: result.score });
  });

  it('explains a node whose cards are too full although its pool matches', () => {
    const nodes = [
      node({ name: 'a-full', policy: 'native-burst-share' }),
      node({ name: 'b-free', policy: 'native-burst-share' }),
    ];
    // Equal scores go to the first name: the big pod leaves a-full's cards 20 % free each.
    place(pod([mgpu('big', 80, 4096, 2)], { policy: 'native-burst-share' }), nodes);
    const result = placePod(seedPod, nodes, { explainRejected: true });
    expect(result).toMatchObject({ ok: true, node: 'b-free', fitting: 1 });
    if (!result.ok) return;
    expect(result.rejections).toMatchObject([
      {
        group: 'NVIDIA-L20/native-burst-share',
        nodes: ['a-full'],
        reason: 'compute',
        code: 'compute',
        params: { computePercent: 120 },
      },
    ]);
  });

  it('gives every rejection a code whose parameters word its English message', () => {
    expect(Object.keys(REJECTION_REASON).sort()).toEqual([...REJECTION_CODES].sort());
    const nodes = [
      node({ name: 'a', policy: 'fixed-share' }),
      node({ name: 'b', type: 'none' }),
      node({ name: 'c', policy: 'native-burst-share', model: 'Tesla-V100' }),
    ];
    const result = placePod({ ...seedPod, model: 'NVIDIA-L20' }, nodes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.rejections.map((rejection) => rejection.code).sort()).toEqual([
      'model',
      'no-gpus',
      'policy-multi-card',
    ]);
    for (const rejection of result.rejections) {
      expect(rejection.message).toBe(rejectionMessage(rejection.code, rejection.params));
      expect(rejection.reason).toBe(REJECTION_REASON[rejection.code]);
    }
  });

  it('places pods without GPUs on nodes without GPUs first', () => {
    const result = placePod(pod([]), [node({ name: 'gpu' }), node({ name: 'cpu', type: 'none' })]);
    expect(result).toMatchObject({ ok: true, node: 'cpu', cards: {} });
  });

  it('refuses a pod whose own GPU fields break a rule', () => {
    const result = placePod(pod([], { invalidRules: ['per-card-compute-precision'] }), [
      node({ name: 'a' }),
    ]);
    expect(result).toMatchObject({ ok: false, rejections: [{ reason: 'invalid', group: 'pod' }] });
  });
});

describe('placePod: card layer', () => {
  it('uses fragmented leftovers of several cards for one multi-card container', () => {
    const nodes = [node({ name: 'a', policy: 'native-burst-share', cards: 2 })];
    place(pod([mgpu('x', 40, 4096, 2)], { policy: 'native-burst-share' }), nodes);
    // No card has 120 % left, but two cards have 60 % each.
    expect(place(seedPod, nodes)).toMatchObject({ ok: true, cards: { worker: [0, 1] } });
    expect(place(pod([mgpu('y', 10, 1024)], { policy: 'native-burst-share' }), nodes).ok).toBe(
      false,
    );
  });

  it('binpacks onto the fuller card by default and spreads onto the emptier one on request', () => {
    const build = () => {
      const nodes = [node({ name: 'a', cards: 4 })];
      place(pod([mgpu('x', 30, 8192)]), nodes);
      return nodes;
    };
    const binpacked = build();
    const card = binpacked[0]?.cards.find((state) => state.usedCompute > 0)?.index;
    expect(placePod(pod([mgpu('y', 20, 2048)]), binpacked)).toMatchObject({
      ok: true,
      cards: { y: [card] },
    });
    const spread = build();
    const result = placePod(pod([mgpu('y', 20, 2048)]), spread, { cardPolicy: 'spread' });
    expect(result.ok && result.cards.y?.[0]).not.toBe(card);
  });

  it('binpacks onto the fuller node, ties to the node name', () => {
    const nodes = [node({ name: 'b' }), node({ name: 'a' }), node({ name: 'c' })];
    expect(place(pod([mgpu('x', 30, 8192)]), nodes)).toMatchObject({ node: 'a' });
    expect(place(pod([mgpu('x', 30, 8192)]), nodes)).toMatchObject({ node: 'a' });
    const spread = placePod(pod([mgpu('x', 30, 8192)]), nodes, { cardPolicy: 'spread' });
    expect(spread).toMatchObject({ node: 'b' });
  });

  it('keeps whole nvidia cards and mGPU instances on different cards', () => {
    const nodes = [node({ name: 'a', cards: 2 })];
    place(pod([mgpu('x', 10, 1024)]), nodes);
    const result = placePod(pod([mgpu('w', 100, null, 2, false)]), nodes);
    expect(result).toMatchObject({ ok: false, rejections: [{ reason: 'idle-cards' }] });
    const nvidiaNodes = [node({ name: 'v', type: 'nvidia', cards: 2 })];
    expect(place(pod([nvidia('w', 1)]), nvidiaNodes)).toMatchObject({
      ok: true,
      cards: { w: [0] },
    });
    expect(place(pod([nvidia('w', 1)]), nvidiaNodes)).toMatchObject({
      ok: true,
      cards: { w: [1] },
    });
    expect(place(pod([nvidia('w', 1)]), nvidiaNodes).ok).toBe(false);
  });

  it(`stops at ${MAX_INSTANCES_PER_CARD} mGPU instances per card`, () => {
    const nodes = [node({ name: 'a', cards: 1 })];
    for (let i = 0; i < MAX_INSTANCES_PER_CARD; i++)
      expect(place(pod([mgpu('x', 1, 1024)]), nodes).ok).toBe(true);
    expect(place(pod([mgpu('x', 1, 1024)]), nodes)).toMatchObject({
      ok: false,
      rejections: [{ reason: 'instance-limit' }],
    });
  });

  it('lets containers of one pod share a card', () => {
    const nodes = [node({ name: 'a', cards: 1 })];
    expect(place(pod([mgpu('x', 30, 2048), mgpu('y', 40, 2048)]), nodes)).toMatchObject({
      ok: true,
      cards: { x: [0], y: [0] },
    });
    expect(nodes[0]?.cards[0]).toMatchObject({
      usedCompute: 70,
      usedMemoryMiB: 4096,
      instances: 2,
    });
  });
});

describe('node states from Kubernetes objects', () => {
  it('books the cards of bound pods from their gpu-index annotations', () => {
    const states = buildNodeStates(
      [kubeNode({ name: 'a', policy: 'native-burst-share', cards: 2 })],
      [
        {
          metadata: {
            name: 'p',
            namespace: 'team-a',
            annotations: { [`${VKE.gpuIndexAnnotationPrefix}w`]: '1,0' },
          },
          spec: {
            nodeName: 'a',
            containers: [
              {
                name: 'w',
                resources: { limits: { [VKE.coreResource]: '120', [VKE.memoryResource]: '8192' } },
              },
            ],
          },
        },
      ],
    );
    expect(
      states[0]?.cards.map((card) => [card.usedCompute, card.usedMemoryMiB, card.instances]),
    ).toEqual([
      [60, 4096, 1],
      [60, 4096, 1],
    ]);
    expect(states[0]).toMatchObject({ pods: 1, freeCompute: 80, memoryMiBPerCard: 46068 });
  });

  it('reads the seed pod into its demand', () => {
    const demand = podDemandOf({
      metadata: {
        name: 'demo-1',
        namespace: 'default',
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
    expect(demand).toMatchObject({
      key: 'default/demo-1',
      policy: 'native-burst-share',
      containers: [
        {
          name: 'worker',
          cards: 2,
          perCard: { computePercent: 60, memoryMiB: 4096 },
          multiCard: true,
        },
      ],
    });
    expect(demand.invalidRules).toBeUndefined();
  });
});
