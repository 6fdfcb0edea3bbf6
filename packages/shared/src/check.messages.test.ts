/** The check's messages in zh-CN and en: each names the field to change, in the operator's language. */
import { describe, expect, it } from 'vitest';
import { type CheckResult, checkRequest, evaluateRequest } from './check.js';
import type { GpuInventory } from './inventory.js';
import type { WorkloadRequest } from './request.js';
import { KUBERNETES_RULES, type Lang, MGPU_RULES } from './rules.js';
import { expectErrors, multi, requestOf, single } from './test-support/check-rows.js';

/** The §7 labels of the form's fields (and plain names for the ordinary Kubernetes fields). */
const LABELS: Record<Lang, Record<string, string>> = {
  'zh-CN': {
    type: 'GPU 资源类型',
    multiCard: '多卡共享',
    compute: 'GPU 算力',
    memoryGiB: 'GPU 显存',
    cards: 'GPU 卡数',
    model: '显卡类型',
    computePolicy: '算力分配策略',
    name: '名称',
    namespace: '命名空间',
    replicas: '副本数',
    image: '镜像',
  },
  en: {
    type: 'GPU resource type',
    multiCard: 'Multi-card sharing',
    compute: 'GPU compute',
    memoryGiB: 'GPU memory',
    cards: 'GPU cards',
    model: 'GPU model',
    computePolicy: 'Compute policy',
    name: 'Name',
    namespace: 'Namespace',
    replicas: 'Replicas',
    image: 'Image',
  },
};

/** The label of the field a path points at; `containers.N.name` is the container's name. */
function labelOf(path: string, lang: Lang): string | undefined {
  if (path === 'containers') return undefined;
  const last = path.split('.').at(-1) ?? '';
  if (/^containers\.\d+\.name$/.test(path)) return lang === 'en' ? 'Container name' : '容器名称';
  return LABELS[lang][last];
}

describe('messages in zh-CN and en', () => {
  const inventory: GpuInventory = {
    pools: [
      {
        model: 'NVIDIA-L20',
        resourceType: 'mgpu',
        policy: 'native-burst-share',
        cardsPerNode: 4,
        memoryMiBPerCard: 49152,
        nodes: 1,
      },
      {
        model: 'Tiny-2G',
        resourceType: 'mgpu',
        policy: 'native-burst-share',
        cardsPerNode: 8,
        memoryMiBPerCard: 2048,
        nodes: 1,
      },
    ],
    // 2 nodes of 110 pods: only a corpus entry of more replicas is over it.
    podSlots: { nodes: 2, pods: 220 },
    // Only the corpus entry in this namespace is over it.
    quotas: [
      {
        namespace: 'quota-test',
        name: 'gpu',
        hard: { 'requests.vke.volcengine.com/mgpu-core': 40 },
        used: {},
      },
    ],
  };
  /** Cluster-aware cases carry the inventory; the others are checked without one. */
  const failing: { label: string; request: WorkloadRequest; inventory?: GpuInventory }[] = [
    { label: 'compute "abc"', request: requestOf(single('abc', '8')) },
    { label: 'compute 0.009', request: requestOf(single('0.009', '8')) },
    { label: 'compute 0.999', request: requestOf(single('0.999', '8')) },
    { label: 'compute 1.25', request: requestOf(single('1.25')) },
    { label: 'compute empty', request: requestOf(single('', '8')) },
    { label: 'compute 1.5 single', request: requestOf(single('1.5')) },
    { label: 'cards 9', request: requestOf(multi('0.8', 9, '8')) },
    { label: '1 over 3', request: requestOf(multi('1', 3, '3')) },
    { label: '3 over 2', request: requestOf(multi('3', 2)) },
    { label: 'slice without memory', request: requestOf(single('0.5')) },
    { label: 'memory "abc"', request: requestOf(single('0.5', 'abc')) },
    { label: 'whole card with memory', request: requestOf(multi('2', 2, '8')) },
    { label: '5 GiB over 3', request: requestOf(multi('0.9', 3, '5')) },
    { label: '80.5 GiB', request: requestOf(single('0.5', '80.5')) },
    { label: '0.5 GiB', request: requestOf(single('0.5', '0.5')) },
    {
      label: 'multi-card under fixed-share',
      request: requestOf(multi('1.2', 2, '8'), { computePolicy: 'fixed-share' }),
    },
    {
      label: 'multi-card with a 50-character name',
      request: requestOf(undefined, {
        containers: [{ name: 'w'.repeat(50), image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    },
    {
      label: 'unknown model',
      request: requestOf({ ...single('0.5', '8'), model: 'NVIDIA-H100' }),
      inventory,
    },
    {
      label: '12 GiB over 3 on a 2 GiB model',
      request: requestOf({ ...multi('0.9', 3, '12'), model: 'Tiny-2G' }),
      inventory,
    },
    {
      label: '5 L20 cards',
      request: requestOf({ ...multi('2.5', 5, '10'), model: 'NVIDIA-L20' }),
      inventory,
    },
    {
      label: '8 whole L20 cards without multi-card sharing',
      request: requestOf({ ...single('8'), model: 'NVIDIA-L20' }),
      inventory,
    },
    { label: 'name "My_App"', request: requestOf(single('0.5', '8'), { name: 'My_App' }) },
    {
      label: 'namespace "Team_A"',
      request: requestOf(single('0.5', '8'), { namespace: 'Team_A' }),
    },
    {
      label: 'container "Worker_1", no image',
      request: requestOf(undefined, { containers: [{ name: 'Worker_1', image: '' }] }),
    },
    {
      label: 'duplicate container names',
      request: requestOf(undefined, {
        containers: [
          { name: 'worker', image: 'nginx:1.27' },
          { name: 'worker', image: 'nginx:1.27' },
        ],
      }),
    },
    { label: 'no containers', request: requestOf(undefined, { containers: [] }) },
    { label: 'replicas -1', request: requestOf(single('0.5', '8'), { replicas: -1 }) },
    {
      label: 'replicas beyond the cluster',
      request: requestOf({ ...single('0.5', '8'), model: 'NVIDIA-L20' }, { replicas: 1000 }),
      inventory,
    },
    {
      label: 'reserved namespace',
      request: requestOf(single('0.5', '8'), { namespace: 'kube-system' }),
    },
    {
      label: 'image with uppercase path',
      request: requestOf(undefined, { containers: [{ name: 'w', image: 'Nginx:1.27' }] }),
    },
    { label: 'name of 64 characters', request: requestOf(undefined, { name: 'a'.repeat(64) }) },
    {
      label: "pods without GPU beyond the nodes' pod slots",
      request: requestOf(undefined, { replicas: 1_000_000_000 }),
      inventory,
    },
    {
      label: 'StatefulSet named with a dot',
      request: requestOf(single('0.5', '8'), { kind: 'StatefulSet', name: 'web.v2' }),
    },
    {
      label: 'StatefulSet named with 53 characters',
      request: requestOf(single('0.5', '8'), { kind: 'StatefulSet', name: 's'.repeat(53) }),
    },
    {
      label: 'too many containers',
      request: requestOf(undefined, {
        containers: Array.from({ length: 33 }, (_, i) => ({ name: `c${i}`, image: 'nginx:1.27' })),
      }),
    },
    {
      label: 'unknown policy',
      request: requestOf(single('0.5', '8'), { computePolicy: 'best-effort' }),
    },
    {
      label: 'nvidia multi-card',
      request: requestOf({ type: 'nvidia', multiCard: true, cards: 2 }),
    },
    {
      label: 'over the namespace quota',
      request: requestOf(single('0.5', '8'), { namespace: 'quota-test' }),
      inventory,
    },
    {
      label: 'different models',
      request: requestOf(undefined, {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: { ...single('0.5', '8'), model: 'NVIDIA-L20' } },
          { name: 'b', image: 'nginx:1.27', gpu: { ...single('0.5', '8'), model: 'Tiny-2G' } },
        ],
      }),
    },
  ];

  it('the corpus below breaks every rule id a check can report', () => {
    const seen = new Set(
      failing.flatMap(({ request, inventory }) =>
        evaluateRequest(request, inventory).violations.map((v) => v.rule),
      ),
    );
    // `requests-equal-limits` judges an existing object (lint); a request has no requests or limits.
    const checkable = [...MGPU_RULES, ...KUBERNETES_RULES].filter(
      (rule) => rule !== 'requests-equal-limits',
    );
    expect(checkable.filter((rule) => !seen.has(rule))).toEqual([]);
  });

  const cases = (['zh-CN', 'en'] as const).flatMap((lang) =>
    failing.map((entry) => ({ lang, ...entry })),
  );
  it.each(cases)(
    '$lang: $label — message names the field, fix is given',
    ({ lang, request, inventory }) => {
      const result = checkRequest(request, { lang, ...(inventory ? { inventory } : {}) });
      expect(result.errors.length).toBeGreaterThan(0);
      for (const error of result.errors) {
        expect(error.message.trim(), `${error.rule} @ ${error.path}`).not.toBe('');
        const label = labelOf(error.path, lang);
        if (label !== undefined) {
          expect(error.message, `${error.rule} @ ${error.path} names "${label}"`).toContain(label);
        }
        expect(error.fix?.trim() ?? '', `${error.rule} @ ${error.path} has a fix`).not.toBe('');
      }
    },
  );

  it.each(['zh-CN', 'en'] as const)('%s: 1 card over 3 says 33.33…% and suggests 1.2', (lang) => {
    const [error] = checkRequest(requestOf(multi('1', 3, '3')), { lang }).errors;
    expect(error?.message).toContain('33.33');
    expect(error?.fix).toContain('1.2');
  });

  it.each(['zh-CN', 'en'] as const)(
    '%s: 5 GiB over 3 cards says 1706.67 MiB and suggests whole GiB amounts that fit',
    (lang) => {
      const [error] = checkRequest(requestOf(multi('0.9', 3, '5')), { lang }).errors;
      expect(error?.message).toContain('1706.67');
      const [violation] = evaluateRequest(requestOf(multi('0.9', 3, '5'))).violations;
      expect(violation?.rule).toBe('per-card-memory-integer');
      if (violation?.rule !== 'per-card-memory-integer') return;
      expect(violation.params.suggestions.length).toBeGreaterThan(0);
      for (const gib of violation.params.suggestions) {
        expect(error?.fix).toContain(`${gib} GiB`);
        expectErrors(checkRequest(requestOf(multi('0.9', 3, gib))), []);
      }
    },
  );

  it.each(['zh-CN', 'en'] as const)(
    '%s: 12 GiB over 3 cards is said as 4096 MiB per card where it matters',
    (lang) => {
      const result = checkRequest(requestOf({ ...multi('0.9', 3, '12'), model: 'Tiny-2G' }), {
        lang,
        inventory,
      });
      const error = result.errors.find((e) => e.rule === 'per-card-memory-exceeds-model');
      expect(error?.message).toContain('4096 MiB');
    },
  );

  it('the language changes the words only', () => {
    for (const { request } of failing) {
      const zh = checkRequest(request, { lang: 'zh-CN', inventory });
      const en = checkRequest(request, { lang: 'en', inventory });
      const bare = (result: CheckResult) => result.errors.map(({ rule, path }) => ({ rule, path }));
      expect(bare(zh)).toEqual(bare(en));
      expect(zh.containers).toEqual(en.containers);
      expect(zh.errors.map((e) => e.message)).not.toEqual(en.errors.map((e) => e.message));
    }
  });
});
