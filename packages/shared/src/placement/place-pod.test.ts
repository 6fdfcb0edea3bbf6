import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocationOf, applyAllocation } from '../ledger/book.js';
import { WHOLE_CARD } from '../ledger/claim.js';
import { MAX_INSTANCES_PER_CARD, VKE } from '../vke.js';
import { podDemandOf } from './demand.js';
import { buildNodeStates, type KubeNodeLike, nodeStateFromNode } from './node-state.js';
import { describeRejections, placePod } from './place-pod.js';
import { REJECTION_CODES, REJECTION_REASON, rejectionMessage } from './rejections.js';
import type { CardPolicy, ContainerDemand, NodeState, PodDemand } from './types.js';

interface NodeSpec {
  name: string;
  type?: 'mgpu' | 'nvidia' | 'none';
  policy?: string;
  model?: string;
  cards?: number;
  memoryMiBPerCard?: number;
}

function kubeNode(spec: NodeSpec): KubeNodeLike {
  const type = spec.type ?? 'mgpu';
  const cards = spec.cards ?? 2;
  const labels: Record<string, string> = {};
  const allocatable: Record<string, string> = { pods: '110' };
  if (type !== 'none') {
    labels[VKE.scheduleLabel] = type;
    labels[VKE.defaultModelLabel] = spec.model ?? 'NVIDIA-L20';
  }
  if (spec.policy) labels[VKE.computePolicyLabel] = spec.policy;
  if (type === 'mgpu') {
    allocatable[VKE.coreResource] = String(cards * 100);
    allocatable[VKE.memoryResource] = String(cards * (spec.memoryMiBPerCard ?? 46068));
  } else if (type === 'nvidia') {
    allocatable[VKE.nvidiaResource] = String(cards);
  }
  return { metadata: { name: spec.name, labels }, status: { allocatable } };
}

const node = (spec: NodeSpec): NodeState => nodeStateFromNode(kubeNode(spec));

const mgpu = (
  name: string,
  computePercent: number,
  memoryMiB: number | null,
  cards = 1,
  multiCard = cards > 1,
): ContainerDemand => ({
  name,
  type: 'mgpu',
  multiCard,
  wholeCards: computePercent === 100,
  cards,
  perCard: { computePercent, memoryMiB },
});

const nvidia = (name: string, cards: number): ContainerDemand => ({
  name,
  type: 'nvidia',
  multiCard: false,
  wholeCards: true,
  cards,
  perCard: WHOLE_CARD,
});

const pod = (containers: ContainerDemand[], extra: Partial<PodDemand> = {}): PodDemand => ({
  key: 'default/p',
  containers,
  policy: 'fixed-share',
  ...extra,
});

/** Books a placement so the next one sees it (what the scheduler's assume cache does). */
function place(demand: PodDemand, nodes: NodeState[], cardPolicy?: CardPolicy) {
  const result = placePod(demand, nodes, cardPolicy ? { cardPolicy } : {});
  if (result.ok) {
    const state = nodes.find((candidate) => candidate.name === result.node);
    if (state) applyAllocation(state, allocationOf(demand, result.node, result.cards));
  }
  return result;
}

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

// ---- properties ----

const containerArb = (name: string): fc.Arbitrary<ContainerDemand> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          cards: fc.integer({ min: 1, max: 4 }),
          compute: fc.integer({ min: 1, max: 99 }),
          memory: fc.integer({ min: 1, max: 12 }),
        })
        .map(({ cards, compute, memory }) => mgpu(name, compute, memory * 1024, cards, cards > 1)),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 2 }).map((cards) => mgpu(name, 100, null, cards, false)),
    },
  );

const podArb: fc.Arbitrary<PodDemand> = fc
  .integer({ min: 1, max: 2 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => containerArb(`c${i}`))))
  .map((containers) => pod(containers, { policy: 'native-burst-share' }));

const clusterArb = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 })
  .map((cardCounts) =>
    cardCounts.map((cards, i) =>
      node({ name: `n${i}`, policy: 'native-burst-share', cards, memoryMiBPerCard: 16384 }),
    ),
  );

/** Every feasible assignment of the pod's containers to one node's cards, by brute force. */
function bruteForce(state: NodeState, demand: PodDemand): number[][][] {
  const results: number[][][] = [];
  const n = state.cards.length;
  const subsets = (k: number): number[][] => {
    const out: number[][] = [];
    const walk = (from: number, acc: number[]) => {
      if (acc.length === k) out.push([...acc]);
      else for (let i = from; i < n; i++) walk(i + 1, [...acc, i]);
    };
    walk(0, []);
    return out;
  };
  const walk = (index: number, acc: number[][]) => {
    const container = demand.containers[index];
    if (container === undefined) {
      const copy: NodeState = { ...state, cards: state.cards.map((card) => ({ ...card })) };
      try {
        applyAllocation(
          copy,
          allocationOf(
            demand,
            copy.name,
            Object.fromEntries(demand.containers.map((c, i) => [c.name, acc[i] ?? []])),
          ),
        );
      } catch {
        return;
      }
      const fits = copy.cards.every(
        (card) =>
          card.usedCompute <= 100 &&
          card.usedMemoryMiB <= copy.memoryMiBPerCard &&
          card.instances <= MAX_INSTANCES_PER_CARD &&
          !(card.wholeNvidia && card.instances > 0),
      );
      // A whole card must have been idle before.
      const wholeOk = demand.containers.every(
        (c, i) =>
          !c.wholeCards ||
          (acc[i] ?? []).every((cardIndex) => {
            const before = state.cards[cardIndex];
            return before !== undefined && before.instances === 0 && before.usedCompute === 0;
          }),
      );
      const wholeAlone = demand.containers.every(
        (c, i) =>
          !c.wholeCards ||
          (acc[i] ?? []).every((cardIndex) => (copy.cards[cardIndex]?.instances ?? 0) === 1),
      );
      if (fits && wholeOk && wholeAlone) results.push(acc);
      return;
    }
    for (const subset of subsets(container.cards)) walk(index + 1, [...acc, subset]);
  };
  walk(0, []);
  return results;
}

describe('placePod properties', () => {
  it('never exceeds a card, never passes 16 instances, gives each container distinct cards', () => {
    fc.assert(
      fc.property(
        clusterArb,
        fc.array(podArb, { minLength: 1, maxLength: 25 }),
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (nodes, pods, cardPolicy) => {
          for (const demand of pods) {
            const result = place(demand, nodes, cardPolicy);
            if (!result.ok) {
              const named = result.rejections.flatMap((rejection) => rejection.nodes).sort();
              expect(named).toEqual(nodes.map((state) => state.name).sort());
              for (const rejection of result.rejections) expect(rejection.message).not.toBe('');
              continue;
            }
            for (const container of demand.containers) {
              const cards = result.cards[container.name] ?? [];
              expect(cards).toHaveLength(container.cards);
              expect(new Set(cards).size).toBe(cards.length);
            }
          }
          for (const state of nodes) {
            for (const card of state.cards) {
              expect(card.usedCompute).toBeLessThanOrEqual(100);
              expect(card.usedMemoryMiB).toBeLessThanOrEqual(state.memoryMiBPerCard);
              expect(card.instances).toBeLessThanOrEqual(MAX_INSTANCES_PER_CARD);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('explains every node but the fitting ones, and explaining never changes the choice', () => {
    fc.assert(
      fc.property(
        clusterArb,
        fc.array(podArb, { maxLength: 10 }),
        podArb,
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (nodes, earlier, demand, cardPolicy) => {
          for (const previous of earlier) place(previous, nodes, cardPolicy);
          const explained = placePod(demand, nodes, { cardPolicy, explainRejected: true });
          const plain = placePod(demand, nodes, { cardPolicy });
          if (!explained.ok || !plain.ok) {
            expect(explained).toEqual(plain);
            return;
          }
          const { rejections = [], fitting = 0, ...choice } = explained;
          expect(choice).toEqual(plain);
          const named = rejections.flatMap((rejection) => rejection.nodes);
          expect(new Set(named).size).toBe(named.length);
          expect(named).not.toContain(explained.node);
          expect(named.length + fitting).toBe(nodes.length);
          for (const rejection of rejections) expect(rejection.message).not.toBe('');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds a placement exactly when one exists, with the best binpack or spread score', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(podArb, { maxLength: 8 }),
        podArb,
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (cards, earlier, demand, cardPolicy) => {
          const nodes = [
            node({ name: 'n', policy: 'native-burst-share', cards, memoryMiBPerCard: 16384 }),
          ];
          for (const previous of earlier) place(previous, nodes);
          const state = nodes[0];
          if (state === undefined) return;
          const feasible = bruteForce(state, demand);
          const result = placePod(demand, nodes, { cardPolicy });
          expect(result.ok).toBe(feasible.length > 0);
          if (!result.ok || feasible.length === 0) return;
          const scoreOf = (assignment: number[][]) => {
            const copy: NodeState = { ...state, cards: state.cards.map((card) => ({ ...card })) };
            applyAllocation(
              copy,
              allocationOf(
                demand,
                'n',
                Object.fromEntries(demand.containers.map((c, i) => [c.name, assignment[i] ?? []])),
              ),
            );
            return copy;
          };
          // The chosen assignment scores at least as well as every feasible one.
          const score = (assignment: number[][]) => {
            const copy = scoreOf(assignment);
            let core = 0;
            let memory = 0;
            for (const card of copy.cards) {
              core += (card.usedCompute / 100) ** 2;
              memory += (card.usedMemoryMiB / copy.memoryMiBPerCard) ** 2;
            }
            const used = (20 * core + 80 * memory) / 100 / copy.cards.length;
            return 100 * (cardPolicy === 'binpack' ? used : 1 - used);
          };
          const best = Math.max(...feasible.map(score));
          expect(result.score).toBeCloseTo(best, 6);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('rejections name the failing constraint', () => {
  const policies = ['native-burst-share', 'fixed-share', 'guaranteed-burst-share'] as const;
  const models = ['NVIDIA-L20', 'Tesla-V100'] as const;
  it('reports the first node-layer constraint an empty node breaks', () => {
    fc.assert(
      fc.property(
        fc.record({
          type: fc.constantFrom<'mgpu' | 'nvidia' | 'none'>('mgpu', 'nvidia', 'none'),
          policy: fc.constantFrom(...policies),
          model: fc.constantFrom(...models),
          cards: fc.integer({ min: 1, max: 4 }),
        }),
        fc.record({
          type: fc.constantFrom<'mgpu' | 'nvidia'>('mgpu', 'nvidia'),
          policy: fc.constantFrom(...policies),
          model: fc.option(fc.constantFrom(...models), { nil: undefined }),
          multiCard: fc.boolean(),
          cards: fc.integer({ min: 1, max: 4 }),
          whole: fc.boolean(),
        }),
        (nodeSpec, podSpec) => {
          const state = node({ name: 'n', ...nodeSpec, memoryMiBPerCard: 16384 });
          const multiCard = podSpec.type === 'mgpu' && podSpec.multiCard;
          const cards = multiCard || podSpec.whole || podSpec.type === 'nvidia' ? podSpec.cards : 1;
          const container =
            podSpec.type === 'nvidia'
              ? nvidia('c', cards)
              : podSpec.whole
                ? mgpu('c', 100, null, cards, multiCard)
                : mgpu('c', 40, 4096, cards, multiCard);
          const demand = pod([container], {
            policy: podSpec.policy,
            ...(podSpec.model ? { model: podSpec.model } : {}),
          });
          const fractional = container.type === 'mgpu' && !container.wholeCards;
          let expected: string | undefined;
          if (multiCard && podSpec.policy !== 'native-burst-share') expected = 'policy';
          else if (nodeSpec.type !== container.type) expected = 'resource-type';
          else if (multiCard && nodeSpec.policy !== 'native-burst-share') expected = 'policy';
          else if (fractional && nodeSpec.type === 'mgpu' && nodeSpec.policy !== podSpec.policy)
            expected = 'policy';
          else if (podSpec.model !== undefined && podSpec.model !== nodeSpec.model)
            expected = 'model';
          else if (cards > nodeSpec.cards) expected = 'cards';
          const result = placePod(demand, [state]);
          if (expected === undefined) {
            expect(result.ok).toBe(true);
          } else {
            expect(result.ok).toBe(false);
            if (!result.ok)
              expect(result.rejections.map((rejection) => rejection.reason)).toEqual([expected]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
