/**
 * Issue 17 item 6: a namespace's ResourceQuota on mGPU, counted as kube-apiserver counts it
 * (pods.go: `requests.<extended>` = the containers' requests summed, init containers' largest),
 * and the `quota-exceeded` rule that checks a request against it while the operator types.
 */
import { describe, expect, it } from 'vitest';
import { checkRequest, evaluateRequest } from './check.js';
import type { GpuInventory } from './inventory.js';
import {
  formatQuotaAmount,
  type NamespaceQuota,
  namespaceQuotaOf,
  podChargesQuota,
  podQuotaUsage,
  QUOTA_CORE,
  QUOTA_MEMORY,
  quotasWithout,
  quotaUsedBy,
  rolloutPeakCharge,
} from './quota.js';
import { type WorkloadRequestInput, WorkloadRequestSchema } from './request.js';
import { seedRequest } from './seed-request.js';
import { VKE } from './vke.js';

const pools: GpuInventory['pools'] = [
  {
    model: 'NVIDIA-L20',
    resourceType: 'mgpu',
    policy: 'native-burst-share',
    cardsPerNode: 8,
    memoryMiBPerCard: 46068,
    nodes: 2,
  },
];

function request(overrides: Partial<WorkloadRequestInput> = {}) {
  return WorkloadRequestSchema.parse(seedRequest('demo', { namespace: 'team-a', ...overrides }));
}

const quota = (
  hard: Record<string, number>,
  used: Record<string, number> = {},
): NamespaceQuota => ({
  namespace: 'team-a',
  name: 'gpu',
  hard,
  used,
});

const quotaViolations = (input: Partial<WorkloadRequestInput>, quotas: NamespaceQuota[]) =>
  evaluateRequest(request(input), { pools, quotas }).violations.filter(
    (violation) => violation.rule === 'quota-exceeded',
  );

describe('podQuotaUsage: what one pod charges', () => {
  it('charges a multi-card container its total, per-card share × cards, as its requests say', () => {
    // compute 1.2 on 2 cards: 60 per card, mgpu-core 120; 8 GiB over 2 cards: 8192 MiB in all.
    const spec = {
      containers: [
        {
          resources: {
            requests: { [VKE.coreResource]: '120', [VKE.memoryResource]: '8192', cpu: '500m' },
          },
        },
      ],
    };
    expect(podQuotaUsage(spec)).toEqual({ [QUOTA_CORE]: 120, [QUOTA_MEMORY]: 8192 });
  });

  it('sums containers and takes the largest init container where that is more', () => {
    const core = (n: number) => ({ resources: { requests: { [VKE.coreResource]: String(n) } } });
    expect(podQuotaUsage({ containers: [core(30), core(40)], initContainers: [core(50)] })).toEqual(
      { [QUOTA_CORE]: 70 },
    );
    expect(podQuotaUsage({ containers: [core(30)], initContainers: [core(90), core(20)] })).toEqual(
      { [QUOTA_CORE]: 90 },
    );
  });

  it('counts only extended resources: cpu, memory and kubernetes.io names have quotas of their own', () => {
    expect(
      podQuotaUsage({
        containers: [
          { resources: { requests: { cpu: '1', memory: '1Gi', 'kubernetes.io/x': '1' } } },
        ],
      }),
    ).toEqual({});
  });

  it('stops charging finished pods and deleted pods past their grace period', () => {
    const now = Date.parse('2026-01-01T00:01:00Z');
    expect(podChargesQuota({ status: { phase: 'Running' } }, now)).toBe(true);
    expect(podChargesQuota({ status: { phase: 'Succeeded' } }, now)).toBe(false);
    expect(podChargesQuota({ status: { phase: 'Failed' } }, now)).toBe(false);
    const deleted = (at: string) => ({
      metadata: { deletionTimestamp: at, deletionGracePeriodSeconds: 30 },
    });
    expect(podChargesQuota(deleted('2026-01-01T00:00:50Z'), now)).toBe(true);
    expect(podChargesQuota(deleted('2026-01-01T00:00:00Z'), now)).toBe(false);
  });

  it('sums the pods that still count for the quota resources asked about', () => {
    const pod = (core: string, phase = 'Running') => ({
      spec: { containers: [{ resources: { requests: { [VKE.coreResource]: core } } }] },
      status: { phase },
    });
    expect(
      quotaUsedBy([pod('60'), pod('40'), pod('100', 'Succeeded')], [QUOTA_CORE, QUOTA_MEMORY], 0),
    ).toEqual({ [QUOTA_CORE]: 100, [QUOTA_MEMORY]: 0 });
  });
});

describe('quotasWithout: the quota as an edit of a workload sees it', () => {
  it("gives back what the workload's own pods are charged, in their namespace only", () => {
    const pod = (core: string, phase = 'Running') => ({
      spec: { containers: [{ resources: { requests: { [VKE.coreResource]: core } } }] },
      status: { phase },
    });
    const quotas: NamespaceQuota[] = [
      quota({ [QUOTA_CORE]: 100 }, { [QUOTA_CORE]: 100, [QUOTA_MEMORY]: 0 }),
      { ...quota({ [QUOTA_CORE]: 100 }, { [QUOTA_CORE]: 100 }), namespace: 'team-b' },
    ];
    // A finished pod is not in status.used, so it is not given back either.
    const own = [pod('60'), pod('40'), pod('100', 'Succeeded')];
    const edited = quotasWithout(quotas, 'team-a', own, 0);
    expect(edited[0]?.used).toEqual({ [QUOTA_CORE]: 0, [QUOTA_MEMORY]: 0 });
    expect(edited[1]).toBe(quotas[1]);
    // A pod the controller has not counted yet does not drive used below zero.
    expect(quotasWithout(quotas, 'team-a', [pod('150')], 0)[0]?.used[QUOTA_CORE]).toBe(0);
  });
});

describe('namespaceQuotaOf and formatQuotaAmount', () => {
  it('reads status, as admission judges by it, and spec.hard before the controller has run', () => {
    const object = {
      metadata: { name: 'gpu', namespace: 'team-a' },
      spec: { hard: { [QUOTA_CORE]: '200' } },
      status: { hard: { [QUOTA_CORE]: '100' }, used: { [QUOTA_CORE]: '40' } },
    };
    expect(namespaceQuotaOf(object)).toEqual(quota({ [QUOTA_CORE]: 100 }, { [QUOTA_CORE]: 40 }));
    expect(namespaceQuotaOf({ ...object, status: {} })).toEqual(quota({ [QUOTA_CORE]: 200 }));
  });

  it('prints whole numbers as resource.Quantity does', () => {
    expect([0, 120, 1000, 1500, 8192, 12000, 2_000_000].map(formatQuotaAmount)).toEqual([
      '0',
      '120',
      '1k',
      '1500',
      '8192',
      '12k',
      '2M',
    ]);
  });
});

describe('quota-exceeded: the request against its namespace quotas', () => {
  it('passes a request that fits what is left', () => {
    expect(quotaViolations({}, [quota({ [QUOTA_CORE]: 200 }, { [QUOTA_CORE]: 80 })])).toEqual([]);
  });

  it('refuses compute over the quota on the compute field, with the numbers', () => {
    const [violation, ...rest] = quotaViolations({}, [quota({ [QUOTA_CORE]: 100 })]);
    expect(rest).toEqual([]);
    expect(violation).toEqual({
      rule: 'quota-exceeded',
      path: 'containers.0.gpu.compute',
      params: {
        namespace: 'team-a',
        quota: 'gpu',
        container: 'worker',
        field: 'compute',
        resource: QUOTA_CORE,
        replicas: 1,
        perPod: 120,
        requested: 120,
        used: 0,
        limit: 100,
        maxPerPod: 100,
        maxReplicas: 0,
      },
    });
  });

  it('counts replicas × per pod and what is already used', () => {
    const [violation] = quotaViolations({ replicas: 3 }, [
      quota({ [QUOTA_CORE]: 400, [QUOTA_MEMORY]: 65536 }, { [QUOTA_CORE]: 100, [QUOTA_MEMORY]: 0 }),
    ]);
    expect(violation?.params).toMatchObject({
      requested: 360,
      used: 100,
      limit: 400,
      maxPerPod: 100,
      maxReplicas: 2,
    });
  });

  it('refuses memory on the memory field', () => {
    expect(
      quotaViolations({}, [quota({ [QUOTA_MEMORY]: 4096 })]).map((violation) => violation.path),
    ).toEqual(['containers.0.gpu.memoryGiB']);
  });

  it('reads only quotas of the request namespace', () => {
    expect(quotaViolations({ namespace: 'team-b' }, [quota({ [QUOTA_CORE]: 10 })])).toEqual([]);
  });

  it('words the numbers and a fix in both languages', () => {
    const inventory = { pools, quotas: [quota({ [QUOTA_CORE]: 400 }, { [QUOTA_CORE]: 100 })] };
    const en = checkRequest(request({ replicas: 3 }), { lang: 'en', inventory });
    const zh = checkRequest(request({ replicas: 3 }), { lang: 'zh-CN', inventory });
    expect(en.valid).toBe(false);
    expect(en.errors).toEqual([
      {
        path: 'containers.0.gpu.compute',
        rule: 'quota-exceeded',
        message: `ResourceQuota "gpu" of Namespace "team-a" limits ${QUOTA_CORE} to 400 (4 cards) and 100 (1 card) is used; 3 replicas × 120 ask for 360 (3.6 cards) more (GPU compute of container "worker").`,
        fix: 'Ask for at most 100 (1 card) per pod, or run at most 2 replicas, or have the quota raised (kubectl describe resourcequota gpu -n team-a).',
        fixes: [{ changes: [{ path: 'replicas', value: 2 }] }],
      },
    ]);
    // The button's fix, applied, fits the quota.
    const fixed = checkRequest(request({ replicas: 2 }), { lang: 'en', inventory });
    expect(fixed.errors.filter((error) => error.rule === 'quota-exceeded')).toEqual([]);
    expect(zh.errors[0]?.message).toContain('400（4 张卡）');
    expect(zh.errors[0]?.message).toContain('已使用 100（1 张卡）');
    expect(zh.errors[0]?.fix).toContain('最多运行 2 个副本');
  });
});

describe("quota-exceeded during an edit's rolling update: the surge pods count", () => {
  // 3 replicas of compute 1 on 2 cards (100 each) become compute 1.2 (120 each): 360 once rolled
  // out. The quota's used has the old pods given back (quotasWithout), so it reads 0 here.
  const edited = request({ replicas: 3 });
  const oldPods = [{ [QUOTA_CORE]: 100 }, { [QUOTA_CORE]: 100 }, { [QUOTA_CORE]: 100 }];
  const check = (limit: number, maxSurge: number, lang: 'en' | 'zh-CN' = 'en') =>
    checkRequest(edited, {
      lang,
      inventory: {
        pools,
        quotas: [quota({ [QUOTA_CORE]: limit }, { [QUOTA_CORE]: 0 })],
        rollout: { maxSurge, replaced: oldPods },
      },
    });

  it('peaks at the new replicas beside the last maxSurge old pods', () => {
    // 3 × 120 new beside one old 100 = 460; at the start 300 old beside one new 120 = 420.
    expect(rolloutPeakCharge(120, 3, QUOTA_CORE, { maxSurge: 1, replaced: oldPods })).toBe(460);
    // A smaller edit peaks at the start: all 3 old pods beside the first new one.
    expect(rolloutPeakCharge(50, 3, QUOTA_CORE, { maxSurge: 1, replaced: oldPods })).toBe(350);
    expect(rolloutPeakCharge(120, 3, QUOTA_CORE, { maxSurge: 0, replaced: oldPods })).toBe(360);
  });

  it('refuses an edit that fits once rolled out but not while old and new pods overlap', () => {
    const refused = check(400, 1);
    expect(refused.valid).toBe(false);
    expect(refused.errors).toEqual([
      {
        path: 'containers.0.gpu.compute',
        rule: 'quota-exceeded',
        message: `ResourceQuota "gpu" of Namespace "team-a" limits ${QUOTA_CORE} to 400 (4 cards). 3 replicas × 120 fit once rolled out, but during the rolling update up to 1 more pod (maxSurge) run beside them and 460 (4.6 cards) is charged at its peak (GPU compute of container "worker"); the update would stall half-way.`,
        fix: "Lower the Deployment's spec.strategy.rollingUpdate.maxSurge to 0 (with maxUnavailable at least 1), or have the quota raised (kubectl describe resourcequota gpu -n team-a).",
      },
    ]);
    expect(check(400, 1, 'zh-CN').errors[0]?.fix).toContain('maxSurge 降到 0');
  });

  it('names the largest maxSurge that fits, and passes once the quota holds the peak', () => {
    // maxSurge 3: 360 + 300 = 660 > 600; maxSurge 2: 360 + 200 = 560 fits.
    expect(check(600, 3).errors[0]?.fix).toContain('maxSurge to 2,');
    expect(check(460, 1).valid).toBe(true);
  });

  it('keeps the steady-state wording when even the rolled-out pods do not fit', () => {
    const [error] = check(300, 1).errors;
    expect(error?.message).toContain('3 replicas × 120 ask for 360 (3.6 cards) more');
  });
});
