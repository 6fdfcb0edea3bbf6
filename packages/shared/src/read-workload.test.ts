import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRequest, evaluateRequest } from './check.js';
import { readWorkloadObject } from './read-workload.js';
import { validRequest } from './test-support/arbitraries.js';

const podTemplate = (annotations: Record<string, string>, containers: object[]) => ({
  metadata: { annotations },
  spec: { containers },
});

const mgpuContainer = (name: string, core: string, memory?: string) => ({
  name,
  image: 'nginx:1.27',
  resources: {
    limits: {
      'vke.volcengine.com/mgpu-core': core,
      ...(memory ? { 'vke.volcengine.com/mgpu-memory': memory } : {}),
    },
  },
});

describe('readWorkloadObject', () => {
  it('reads the seed annotation form back into compute, GiB and cards', () => {
    const read = readWorkloadObject({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'demo', namespace: 'team-a' },
      spec: {
        replicas: 2,
        template: podTemplate(
          {
            'vke.volcengine.com/multiple-mgpu-worker': '2',
            'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
          },
          [mgpuContainer('worker', '120', '8192')],
        ),
      },
    });
    expect(read?.request).toMatchObject({
      name: 'demo',
      namespace: 'team-a',
      replicas: 2,
      computePolicy: 'native-burst-share',
      containers: [
        {
          name: 'worker',
          gpu: { type: 'mgpu', multiCard: true, compute: '1.2', memoryGiB: '8', cards: '2' },
        },
      ],
    });
    expect(read?.objectPath('containers.0.gpu.cards')).toBe(
      'spec.template.metadata.annotations["vke.volcengine.com/multiple-mgpu-worker"]',
    );
  });

  it('reads the older positional annotation, one card count per container in order', () => {
    const read = readWorkloadObject({
      kind: 'StatefulSet',
      metadata: { name: 'old' },
      spec: {
        template: podTemplate({ 'vke.volcengine.com/container-multiple-gpu': '2,1,4' }, [
          mgpuContainer('a', '120', '8192'),
          mgpuContainer('b', '50', '4096'),
          mgpuContainer('c', '200'),
        ]),
      },
    });
    const gpus = read?.request.containers.map((container) => container.gpu);
    expect(gpus?.map((gpu) => [gpu?.multiCard, gpu?.cards])).toEqual([
      [true, '2'],
      [false, undefined],
      [true, '4'],
    ]);
  });

  it('prefers the seed annotation over the positional one for the same container', () => {
    const read = readWorkloadObject({
      kind: 'Pod',
      metadata: {
        name: 'p',
        annotations: {
          'vke.volcengine.com/container-multiple-gpu': '4',
          'vke.volcengine.com/multiple-mgpu-main': '2',
        },
      },
      spec: { containers: [mgpuContainer('main', '100', '4096')] },
    });
    expect(read?.request.containers[0]?.gpu?.cards).toBe('2');
    expect(read?.objectPath('containers.0.gpu.compute')).toBe(
      'spec.containers[0].resources.limits["vke.volcengine.com/mgpu-core"]',
    );
  });

  it('reads every workload kind from where its pod template sits', () => {
    const template = podTemplate({}, [mgpuContainer('w', '50', '2048')]);
    const kinds = {
      Deployment: { spec: { template } },
      DaemonSet: { spec: { template } },
      Job: { spec: { template } },
      CronJob: { spec: { jobTemplate: { spec: { template } } } },
      Pod: { metadata: { name: 'p' }, spec: template.spec },
    };
    for (const [kind, body] of Object.entries(kinds)) {
      const read = readWorkloadObject({ kind, metadata: { name: 'x' }, ...body });
      expect(read?.usesMgpu, kind).toBe(true);
      expect(read?.request.containers[0]?.gpu).toMatchObject({ compute: '0.5', memoryGiB: '2' });
    }
  });

  it('reads whole nvidia cards and the GPU model from node affinity or a node selector', () => {
    const read = readWorkloadObject({
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        nodeSelector: { 'machine.cluster.vke.volcengine.com/gpu-name': 'Tesla-V100' },
        containers: [{ name: 'w', image: 'i', resources: { limits: { 'nvidia.com/gpu': '2' } } }],
      },
    });
    expect(read?.request.containers[0]?.gpu).toEqual({
      type: 'nvidia',
      multiCard: false,
      cards: 2,
      model: 'Tesla-V100',
    });
    expect(read?.usesMgpu).toBe(false);
  });

  it('ignores objects that are not workloads', () => {
    expect(readWorkloadObject({ kind: 'Service', metadata: { name: 's' } })).toBeUndefined();
    expect(readWorkloadObject('text')).toBeUndefined();
    expect(readWorkloadObject(null)).toBeUndefined();
  });

  it('reads every manifest the console writes back into the same per-card shares', () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        const built = checkRequest(request);
        expect(built.valid).toBe(true);
        const read = readWorkloadObject(built.manifest);
        expect(read).toBeDefined();
        const again = evaluateRequest(read?.request ?? request);
        expect(again.violations).toEqual([]);
        const shape = (shares: typeof built.containers) =>
          shares.map(({ index, cards, perCard, computePercent, memoryMiB, model, type }) => ({
            index,
            cards,
            perCard,
            computePercent,
            memoryMiB,
            model,
            type,
          }));
        expect(shape(again.shares)).toEqual(shape(built.containers));
      }),
      { numRuns: 300 },
    );
  });
});
