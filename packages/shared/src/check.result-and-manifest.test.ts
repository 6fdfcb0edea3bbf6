/** The check result (spec §7), the §3 worked examples and the manifest (spec §4). */
import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import type { DeploymentManifest } from './manifest.js';
import { type WorkloadRequestInput, WorkloadRequestSchema } from './request.js';
import { SEED_REQUEST } from './seed-request.js';
import {
  COMPUTE,
  CORE,
  expectErrors,
  limitsOf,
  MEM,
  MEMORY,
  MODEL_LABEL,
  multi,
  NVIDIA,
  POLICY_ANNOTATION,
  requestOf,
  single,
} from './test-support/check-rows.js';

describe('the check result (spec §7)', () => {
  it('lists only the GPU containers whose own fields are valid', () => {
    const result = checkRequest(
      requestOf(undefined, {
        name: 'Bad_Name',
        containers: [
          { name: 'good', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') },
          { name: 'bad', image: 'nginx:1.27', gpu: multi('1', 3, '3') },
          { name: 'plain', image: 'busybox' },
        ],
      }),
    );
    expect(result.valid).toBe(false);
    expect(result.manifest).toBeUndefined();
    expect(result.containers.map((c) => [c.name, c.cards, c.perCard])).toEqual([
      ['good', 2, { computePercent: 60, memoryMiB: 4096 }],
    ]);
  });

  it('a compute or memory sent as a JSON number is judged as its decimal text', () => {
    const asNumbers = checkRequest(
      WorkloadRequestSchema.parse({
        name: 'demo',
        containers: [{ name: 'worker', image: 'nginx:1.27', gpu: { compute: 0.29, memoryGiB: 8 } }],
      }),
    );
    expectErrors(asNumbers, []);
    expect(limitsOf(asNumbers)).toEqual({ [CORE]: '29', [MEM]: '8192' });
  });
});

describe('spec §3 worked examples', () => {
  it('c=1.2, n=2 → 60 % per card, mgpu-core "120"', () => {
    const result = checkRequest(requestOf(multi('1.2', 2, '8')));
    expectErrors(result, []);
    expect(result.containers[0]?.perCard.computePercent).toBe(60);
    expect(limitsOf(result)?.[CORE]).toBe('120');
  });

  it('c=1, n=3 → 33.33…% per card: per-card-compute-precision', () => {
    expectErrors(checkRequest(requestOf(multi('1', 3, '3'))), [
      ['per-card-compute-precision', COMPUTE],
    ]);
  });

  it('12 GiB over 3 cards → 4096 MiB per card', () => {
    const result = checkRequest(requestOf(multi('0.9', 3, '12')));
    expectErrors(result, []);
    expect(result.containers[0]?.perCard.memoryMiB).toBe(4096);
    expect(limitsOf(result)?.[MEM]).toBe('12288');
  });

  it('5 GiB over 3 cards → 1706.67 MiB: per-card-memory-integer', () => {
    expectErrors(checkRequest(requestOf(multi('0.9', 3, '5'))), [
      ['per-card-memory-integer', MEMORY],
    ]);
  });

  it('c=2, n=2 → whole cards: memory must be empty', () => {
    expectErrors(checkRequest(requestOf(multi('2', 2, '8'))), [['memory-with-whole-card', MEMORY]]);
    const result = checkRequest(requestOf(multi('2', 2)));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [CORE]: '200' });
  });
});

describe('the manifest (spec §4)', () => {
  const seedRequest: WorkloadRequestInput = SEED_REQUEST;

  it("the seed's example (1.2 on 2 cards, 8 GiB, native-burst-share) is valid", () => {
    const result = checkRequest(WorkloadRequestSchema.parse(seedRequest));
    expectErrors(result, []);
    expect(result.containers).toHaveLength(1);
    expect(result.containers[0]).toMatchObject({
      name: 'worker',
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 4096 },
    });

    const manifest = result.manifest as DeploymentManifest | undefined;
    expect(manifest).toMatchObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'demo', namespace: 'default' },
      spec: { replicas: 1 },
    });
    const template = manifest?.spec.template;
    expect(template?.metadata.annotations).toEqual({
      'vke.volcengine.com/multiple-mgpu-worker': '2',
      [POLICY_ANNOTATION]: 'native-burst-share',
    });
    const container = template?.spec.containers[0];
    expect(container).toMatchObject({ name: 'worker', image: 'nginx:1.27' });
    expect(container?.resources?.limits).toEqual({ [CORE]: '120', [MEM]: '8192' });
    expect(container?.resources?.requests).toEqual(container?.resources?.limits);
    expect(
      template?.spec.affinity?.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
        .nodeSelectorTerms,
    ).toEqual([
      { matchExpressions: [{ key: MODEL_LABEL, operator: 'In', values: ['NVIDIA-L20'] }] },
    ]);
    // The Deployment must select its own pods.
    expect(template?.metadata.labels).toMatchObject(manifest?.spec.selector.matchLabels ?? {});
  });

  it("the seed's annotation form for a container named pod-demo", () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [{ name: 'pod-demo', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    );
    const annotations = result.manifest?.spec.template.metadata.annotations ?? {};
    expect(annotations['vke.volcengine.com/multiple-mgpu-pod-demo']).toBe('2');
    // Read both forms, write the seed's (§4).
    expect(annotations['vke.volcengine.com/container-multiple-gpu']).toBeUndefined();
  });

  it('no model → no node affinity; no policy → no policy annotation', () => {
    const result = checkRequest(requestOf(single('0.5', '8'), { computePolicy: undefined }));
    expectErrors(result, []);
    expect(result.manifest?.spec.template.spec.affinity).toBeUndefined();
    expect(
      result.manifest?.spec.template.metadata.annotations?.[POLICY_ANNOTATION],
    ).toBeUndefined();
    expect(limitsOf(result)).toEqual({ [CORE]: '50', [MEM]: '8192' });
  });

  it('an empty model means any model: no node affinity', () => {
    const result = checkRequest(requestOf({ ...single('0.5', '8'), model: '' }));
    expectErrors(result, []);
    expect(result.manifest?.spec.template.spec.affinity).toBeUndefined();
  });

  it('a single-card slice has no multi-card annotation', () => {
    const result = checkRequest(requestOf(single('0.5', '8')));
    const keys = Object.keys(result.manifest?.spec.template.metadata.annotations ?? {});
    expect(keys.filter((k) => k.includes('multiple'))).toEqual([]);
  });

  it('whole cards without multi-card sharing: mgpu-core only', () => {
    const result = checkRequest(requestOf(single('2')));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [CORE]: '200' });
  });

  it('nvidia whole cards: nvidia.com/gpu "<n>", nothing of mGPU', () => {
    const result = checkRequest(requestOf({ type: 'nvidia', cards: 2, model: 'Tesla-V100' }));
    expectErrors(result, []);
    expect(limitsOf(result)).toEqual({ [NVIDIA]: '2' });
    expect(result.manifest?.spec.template.spec.containers[0]?.resources?.requests).toEqual({
      [NVIDIA]: '2',
    });
    expect(result.containers[0]).toMatchObject({
      cards: 2,
      perCard: { computePercent: 100, memoryMiB: null },
    });
    expect(
      result.manifest?.spec.template.spec.affinity?.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions[0],
    ).toEqual({ key: MODEL_LABEL, operator: 'In', values: ['Tesla-V100'] });
  });

  it('the model label is configurable', () => {
    const result = checkRequest(requestOf({ ...single('0.5', '8'), model: 'NVIDIA-L20' }), {
      modelLabel: 'example.com/gpu',
    });
    expect(
      result.manifest?.spec.template.spec.affinity?.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions[0]
        ?.key,
    ).toBe('example.com/gpu');
  });

  it('several containers: one annotation per multi-card container, resources per container', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [
          { name: 'a', image: 'nginx:1.27', gpu: multi('1.2', 2, '8') },
          { name: 'b', image: 'nginx:1.27', gpu: single('0.3', '2') },
          { name: 'c', image: 'nginx:1.27', gpu: multi('0.9', 3, '12') },
          { name: 'd', image: 'busybox' },
        ],
      }),
    );
    expectErrors(result, []);
    expect(result.manifest?.spec.template.metadata.annotations).toEqual({
      'vke.volcengine.com/multiple-mgpu-a': '2',
      'vke.volcengine.com/multiple-mgpu-c': '3',
      [POLICY_ANNOTATION]: 'native-burst-share',
    });
    expect(limitsOf(result, 0)).toEqual({ [CORE]: '120', [MEM]: '8192' });
    expect(limitsOf(result, 1)).toEqual({ [CORE]: '30', [MEM]: '2048' });
    expect(limitsOf(result, 2)).toEqual({ [CORE]: '90', [MEM]: '12288' });
    expect(limitsOf(result, 3)).toBeUndefined();
    expect(result.containers.map((c) => [c.name, c.cards, c.perCard])).toEqual([
      ['a', 2, { computePercent: 60, memoryMiB: 4096 }],
      ['b', 1, { computePercent: 30, memoryMiB: 2048 }],
      ['c', 3, { computePercent: 30, memoryMiB: 4096 }],
    ]);
  });

  it('replicas 0 is written as 0', () => {
    const result = checkRequest(requestOf(single('0.5', '8'), { replicas: 0 }));
    expect((result.manifest as DeploymentManifest | undefined)?.spec.replicas).toBe(0);
  });

  // §3: "All arithmetic is exact decimal arithmetic"; §4: mgpu-core is "<c × 100>". Each c is
  // accepted (1000 cards is the largest compute-format takes), so the limit is always read; in
  // binary floats 1.1 × 100 is 110.00000000000001 (0.29 has its own case above).
  it.each([
    ['the largest whole-card compute', single('1000'), '100000'],
    ['1.1 over 2 cards', multi('1.1', 2, '8'), '110'],
  ])('mgpu-core is c × 100 exactly: %s', (_, gpu, core) => {
    const result = checkRequest(requestOf(gpu));
    expectErrors(result, []);
    expect(limitsOf(result)?.[CORE]).toBe(core);
  });
});
