/**
 * Issue 14 "Hardening": the bounds a request must keep so that Kubernetes, the scheduler and
 * the cluster accept what the console writes (replicas, reserved namespaces, image references,
 * name lengths, container counts, the cluster's capacity).
 */
import { describe, expect, it } from 'vitest';
import { checkRequest, checkScale, checkWorkloadTarget, evaluateRequest } from './check.js';
import { imageReferenceProblem } from './image-reference.js';
import type { GpuInventory } from './inventory.js';
import { type WorkloadRequestInput, WorkloadRequestSchema } from './request.js';
import {
  DEFAULT_RESERVED_NAMESPACES,
  MAX_CONTAINERS,
  MAX_GPU_CONTAINER_NAME,
  MAX_MULTI_CARD_CONTAINER_NAME,
  MAX_REPLICAS,
  MAX_STATEFULSET_NAME,
  type RuleId,
} from './rules.js';

const slice = { type: 'mgpu' as const, compute: '0.5', memoryGiB: '8' };

function request(overrides: Partial<WorkloadRequestInput> = {}) {
  return WorkloadRequestSchema.parse({
    name: 'demo',
    namespace: 'default',
    replicas: 1,
    computePolicy: 'native-burst-share',
    containers: [{ name: 'worker', image: 'nginx:1.27', gpu: slice }],
    ...overrides,
  });
}

const rulesOf = (input: Partial<WorkloadRequestInput>, inventory?: GpuInventory) =>
  evaluateRequest(request(input), inventory).violations.map((v): [RuleId, string] => [
    v.rule,
    v.path,
  ]);

describe('replicas-range: a Kubernetes int32 of 0 or more', () => {
  it.each([0, 1, MAX_REPLICAS])('%s replicas are accepted', (replicas) => {
    expect(rulesOf({ replicas })).toEqual([]);
  });
  it.each([-1, 1.5, MAX_REPLICAS + 1, Number.MAX_SAFE_INTEGER])('%s replicas are refused', (r) => {
    expect(rulesOf({ replicas: r })).toEqual([['replicas-range', 'replicas']]);
  });
  it('says the upper bound', () => {
    const [error] = checkRequest(request({ replicas: 2 ** 31 }), { lang: 'en' }).errors;
    expect(error?.message).toContain('2147483647');
  });
});

/** 2 nodes × 4 mGPU cards of 48 GiB (native-burst-share), and 1 node of 8 whole nvidia cards. */
const gpuInventory: GpuInventory = {
  pools: [
    {
      model: 'NVIDIA-L20',
      resourceType: 'mgpu',
      policy: 'native-burst-share',
      cardsPerNode: 4,
      memoryMiBPerCard: 49152,
      nodes: 2,
    },
    {
      model: 'NVIDIA-A100',
      resourceType: 'nvidia',
      policy: 'fixed-share',
      cardsPerNode: 8,
      memoryMiBPerCard: 81920,
      nodes: 1,
    },
  ],
};

describe('replicas-exceed-cluster: no more pods than an empty cluster could hold', () => {
  // A 0.5-card slice of 8 GiB fits 2 per L20 card (100 %): 16 pods.
  const inventory = gpuInventory;
  it('16 replicas of half a card fit 8 cards', () => {
    expect(rulesOf({ replicas: 16 }, inventory)).toEqual([]);
  });
  it('17 are refused, with the figure and the fix', () => {
    expect(rulesOf({ replicas: 17 }, inventory)).toEqual([['replicas-exceed-cluster', 'replicas']]);
    for (const lang of ['en', 'zh-CN'] as const) {
      const [error] = checkRequest(request({ replicas: 17 }), { lang, inventory }).errors;
      expect(error?.message).toContain('16');
      expect(error?.fix).toContain('16');
    }
  });
  it('the 16-instance limit bounds tiny slices: 0.01 of a card with 1 GiB', () => {
    const gpu = { type: 'mgpu' as const, compute: '0.01', memoryGiB: '1' };
    const containers = [{ name: 'w', image: 'nginx:1.27', gpu }];
    // 16 instances × 8 cards = 128 (memory would allow 48 per card, compute 100).
    expect(rulesOf({ replicas: 128, containers }, inventory)).toEqual([]);
    expect(rulesOf({ replicas: 129, containers }, inventory)).toEqual([
      ['replicas-exceed-cluster', 'replicas'],
    ]);
  });
  it('memory bounds large slices: 0.1 of a card with 40 GiB', () => {
    const gpu = { type: 'mgpu' as const, compute: '0.1', memoryGiB: '40' };
    const containers = [{ name: 'w', image: 'nginx:1.27', gpu }];
    expect(rulesOf({ replicas: 8, containers }, inventory)).toEqual([]);
    expect(rulesOf({ replicas: 9, containers }, inventory)).toEqual([
      ['replicas-exceed-cluster', 'replicas'],
    ]);
  });
  it('whole nvidia cards: 8 cards hold 4 pods of 2', () => {
    const containers = [
      { name: 'w', image: 'nginx:1.27', gpu: { type: 'nvidia' as const, cards: 2 } },
    ];
    expect(rulesOf({ replicas: 4, containers }, inventory)).toEqual([]);
    expect(rulesOf({ replicas: 5, containers }, inventory)).toEqual([
      ['replicas-exceed-cluster', 'replicas'],
    ]);
  });
  it('two containers of a pod share the cards', () => {
    const containers = [
      { name: 'a', image: 'nginx:1.27', gpu: slice },
      { name: 'b', image: 'nginx:1.27', gpu: slice },
    ];
    expect(rulesOf({ replicas: 8, containers }, inventory)).toEqual([]);
    expect(rulesOf({ replicas: 9, containers }, inventory)).toEqual([
      ['replicas-exceed-cluster', 'replicas'],
    ]);
  });
  it('is not judged without an inventory, nor for pods without GPU', () => {
    expect(rulesOf({ replicas: 1000 })).toEqual([]);
    const containers = [{ name: 'w', image: 'nginx:1.27' }];
    expect(rulesOf({ replicas: 1000, containers }, inventory)).toEqual([]);
  });
});

describe('replicas-exceed-cluster: no more pods than the nodes run, GPU or not', () => {
  // 3 nodes of 110 pods each: the GPU pools' nodes.
  const inventory: GpuInventory = { ...gpuInventory, podSlots: { nodes: 3, pods: 330 } };
  const cpuOnly = [{ name: 'w', image: 'nginx:1.27' }];
  it('a pod without GPU: 330 are accepted, 331 and a billion refused with the figure', () => {
    expect(rulesOf({ replicas: 330, containers: cpuOnly }, inventory)).toEqual([]);
    for (const replicas of [331, 1_000_000_000, MAX_REPLICAS])
      expect(rulesOf({ replicas, containers: cpuOnly }, inventory)).toEqual([
        ['replicas-exceed-cluster', 'replicas'],
      ]);
    for (const lang of ['en', 'zh-CN'] as const) {
      const [error] = checkRequest(request({ replicas: 1_000_000_000, containers: cpuOnly }), {
        lang,
        inventory,
      }).errors;
      expect(error?.message).toContain('330');
      expect(error?.message).toContain('3');
      expect(error?.fix).toContain('330');
    }
  });
  it('a GPU pod gets the tighter bound: its shape, or the pod slots', () => {
    const gpu = { type: 'mgpu' as const, compute: '0.01', memoryGiB: '1' };
    const containers = [{ name: 'w', image: 'nginx:1.27', gpu }];
    // The shape allows 16 instances × 8 cards = 128; 100 pod slots are tighter.
    const fewSlots = { ...inventory, podSlots: { nodes: 1, pods: 100 } };
    const [bySlots] = evaluateRequest(request({ replicas: 101, containers }), fewSlots).violations;
    expect(bySlots).toMatchObject({ rule: 'replicas-exceed-cluster', params: { max: 100 } });
    expect(bySlots?.params).toHaveProperty('nodes', 1);
    const [byShape] = evaluateRequest(request({ replicas: 129, containers }), inventory).violations;
    expect(byShape).toMatchObject({ rule: 'replicas-exceed-cluster', params: { max: 128 } });
    expect(byShape?.params).not.toHaveProperty('nodes');
  });
  it('a GPU container the cluster cannot judge still gets the pod-slot bound', () => {
    const gpu = { type: 'mgpu' as const, compute: '0.5', memoryGiB: '8', model: 'NVIDIA-H100' };
    const containers = [{ name: 'w', image: 'nginx:1.27', gpu }];
    expect(rulesOf({ replicas: 1_000_000_000, containers }, inventory)).toEqual([
      ['model-unknown', 'containers.0.gpu.model'],
      ['replicas-exceed-cluster', 'replicas'],
    ]);
  });
  it('out of int32 is replicas-range alone; 0 replicas always fit', () => {
    expect(rulesOf({ replicas: MAX_REPLICAS + 1, containers: cpuOnly }, inventory)).toEqual([
      ['replicas-range', 'replicas'],
    ]);
    const empty = { pools: [], podSlots: { nodes: 0, pods: 0 } };
    expect(rulesOf({ replicas: 0, containers: cpuOnly }, empty)).toEqual([]);
  });
});

describe("statefulset-name: a StatefulSet names its Service and its pods' revision label", () => {
  const statefulSet = (name: string) => request({ kind: 'StatefulSet', name });
  const rulesOfSet = (name: string) =>
    evaluateRequest(statefulSet(name)).violations.map((v) => [v.rule, v.path]);
  it.each([
    ['a dot', 'web.v2', 'dns-1035'],
    ['a leading digit', '1web', 'dns-1035'],
    [`${MAX_STATEFULSET_NAME + 1} characters`, 's'.repeat(MAX_STATEFULSET_NAME + 1), 'too-long'],
    ['64 characters (one error, not name-too-long too)', 's'.repeat(64), 'too-long'],
  ])('refuses a name with %s', (_label, name, problem) => {
    const { violations } = evaluateRequest(statefulSet(name));
    expect(violations.map((v) => [v.rule, v.path])).toEqual([['statefulset-name', 'name']]);
    expect(violations[0]?.params).toHaveProperty('problem', problem);
  });
  it(`accepts ${MAX_STATEFULSET_NAME} characters and a letter first; other kinds keep the name rules`, () => {
    expect(MAX_STATEFULSET_NAME).toBe(52);
    expect(rulesOfSet(`w${'x'.repeat(MAX_STATEFULSET_NAME - 1)}`)).toEqual([]);
    for (const kind of ['Deployment', 'Job'] as const) {
      for (const name of ['web.v2', '1web', 's'.repeat(53)])
        expect(rulesOf({ kind, name })).toEqual([]);
    }
  });
  it('a Job name over 63 is name-too-long: its pods carry it as job-name', () => {
    expect(rulesOf({ kind: 'Job', name: 'j'.repeat(64) })).toEqual([['name-too-long', 'name']]);
  });
  it('suggests a name that passes, and says the bound in both languages', () => {
    for (const name of ['web.v2', '1web', 's'.repeat(60)]) {
      const [violation] = evaluateRequest(statefulSet(name)).violations;
      const suggestion =
        violation?.rule === 'statefulset-name' ? violation.params.suggestion : undefined;
      expect(suggestion).toBeDefined();
      expect(rulesOfSet(suggestion ?? '')).toEqual([]);
      for (const lang of ['en', 'zh-CN'] as const) {
        const [error] = checkRequest(statefulSet(name), { lang }).errors;
        expect(error?.message).toContain(lang === 'en' ? 'Name' : '名称');
        expect(error?.fix).toContain(String(MAX_STATEFULSET_NAME));
        expect(error?.fix).toContain(suggestion);
      }
    }
  });
});

describe('checkScale and checkWorkloadTarget: the rules of a write to a live workload', () => {
  const inventory: GpuInventory = { pools: [], podSlots: { nodes: 2, pods: 220 } };
  const live = request({ containers: [{ name: 'w', image: 'nginx:1.27' }] });
  const rulesOfScale = (workload: typeof live, replicas: number) =>
    checkScale(workload, replicas, { inventory }).map((e) => [e.rule, e.path]);
  it('judges the new count: within the pod slots, beyond them, beyond int32', () => {
    expect(rulesOfScale(live, 220)).toEqual([]);
    expect(rulesOfScale(live, MAX_REPLICAS)).toEqual([['replicas-exceed-cluster', 'replicas']]);
    expect(rulesOfScale(live, MAX_REPLICAS + 1)).toEqual([['replicas-range', 'replicas']]);
  });
  it('refuses a reserved namespace, and nothing the scale does not change', () => {
    expect(rulesOfScale({ ...live, namespace: 'kube-system' }, 1)).toEqual([
      ['namespace-reserved', 'namespace'],
    ]);
    // An object made with kubectl may break a form rule; its scale is not the place to say so.
    const foreign = { ...live, containers: [{ name: 'W', image: 'Nginx' }] };
    expect(rulesOfScale(foreign, 2)).toEqual([]);
  });
  it('a delete or update target: the reserved namespaces, default or configured', () => {
    expect(checkWorkloadTarget('kube-node-lease').map((e) => e.rule)).toEqual([
      'namespace-reserved',
    ]);
    expect(checkWorkloadTarget('default')).toEqual([]);
    expect(checkWorkloadTarget('prod', { reservedNamespaces: ['prod'] })).toHaveLength(1);
    expect(checkWorkloadTarget('kube-system', { reservedNamespaces: ['prod'] })).toEqual([]);
  });
});

describe('namespace-reserved', () => {
  it.each(DEFAULT_RESERVED_NAMESPACES)('%s is refused by default', (namespace) => {
    expect(rulesOf({ namespace })).toEqual([['namespace-reserved', 'namespace']]);
  });
  it('the list is configurable in checkRequest and evaluateRequest', () => {
    const reservedNamespaces = ['prod'];
    expect(checkRequest(request({ namespace: 'prod' }), { reservedNamespaces }).valid).toBe(false);
    expect(checkRequest(request({ namespace: 'kube-system' }), { reservedNamespaces }).valid).toBe(
      true,
    );
    const { violations } = evaluateRequest(request({ namespace: 'prod' }), undefined, {
      reservedNamespaces,
    });
    expect(violations.map((v) => v.rule)).toEqual(['namespace-reserved']);
  });
  it('names the namespace field and says what to do', () => {
    const [error] = checkRequest(request({ namespace: 'kube-system' }), { lang: 'zh-CN' }).errors;
    expect(error?.message).toContain('命名空间');
    expect(error?.fix).toContain('default');
  });
});

describe('image-reference: the distribution reference grammar', () => {
  it.each([
    'nginx',
    'nginx:1.27',
    'library/nginx:latest',
    'registry.example.com/team/app:v1',
    'localhost:5000/app',
    'Registry.Example.com/team/app',
    '[::1]:5000/app:v1',
    'a__b/c-d--e.f_g:TAG_1.0-x',
    `nginx@sha256:${'a'.repeat(64)}`,
    `nginx:1.27@sha256:${'0'.repeat(64)}`,
  ])('%s is accepted', (image) => {
    expect(imageReferenceProblem(image)).toBeUndefined();
  });
  it.each([
    ['nginx\u200b:1.27', 'invisible'],
    ['\ufeffnginx', 'invisible'],
    ['nginx :1.27', 'whitespace'],
    ['nginx:1.27\n', 'whitespace'],
    [' nginx', 'whitespace'],
    ['Nginx:1.27', 'uppercase'],
    ['registry.example.com/Team/app', 'uppercase'],
    [`${'a'.repeat(256)}`, 'too-long'],
    ['nginx:-bad', 'bad-tag'],
    [`nginx:${'t'.repeat(129)}`, 'bad-tag'],
    ['nginx@sha256:abc', 'bad-digest'],
    ['nginx@', 'bad-digest'],
    ['-nginx', 'bad-format'],
    ['nginx/', 'bad-format'],
    ['a//b', 'bad-format'],
    ['https://registry/app', 'bad-format'],
  ] as const)('%j: %s', (image, problem) => {
    expect(imageReferenceProblem(image)).toBe(problem);
    expect(rulesOf({ containers: [{ name: 'w', image }] })).toEqual([
      ['image-reference', 'containers.0.image'],
    ]);
  });
  it('an empty image stays image-required', () => {
    expect(rulesOf({ containers: [{ name: 'w', image: '' }] })).toEqual([
      ['image-required', 'containers.0.image'],
    ]);
  });
  it('names the container, says what is wrong, shows the form', () => {
    const [error] = checkRequest(request({ containers: [{ name: 'w', image: 'Nginx' }] }), {
      lang: 'en',
    }).errors;
    expect(error?.message).toContain('"w"');
    expect(error?.message).toContain('uppercase');
    expect(error?.fix).toContain('registry.example.com/team/app:v1');
  });
});

describe('name-too-long: the name is also a label value', () => {
  it('63 characters are accepted, 64 refused with a fix', () => {
    expect(rulesOf({ name: 'a'.repeat(63) })).toEqual([]);
    expect(rulesOf({ name: 'a'.repeat(64) })).toEqual([['name-too-long', 'name']]);
    const [error] = checkRequest(request({ name: 'a'.repeat(100) }), { lang: 'en' }).errors;
    expect(error?.message).toContain('100');
    expect(error?.fix).toContain('63');
  });
});

describe('containers-max', () => {
  const containers = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.27' }));
  it(`${MAX_CONTAINERS} are accepted, one more is refused`, () => {
    expect(rulesOf({ containers: containers(MAX_CONTAINERS) })).toEqual([]);
    expect(rulesOf({ containers: containers(MAX_CONTAINERS + 1) })).toEqual([
      ['containers-max', 'containers'],
    ]);
  });
});

describe('annotation-key-too-long limits come from the key prefixes', () => {
  it('gpu-index-container-<name> is the tighter key: 43, multiple-mgpu-<name>: 49', () => {
    expect(MAX_GPU_CONTAINER_NAME).toBe(63 - 'gpu-index-container-'.length);
    expect(MAX_MULTI_CARD_CONTAINER_NAME).toBe(63 - 'multiple-mgpu-'.length);
  });
});
