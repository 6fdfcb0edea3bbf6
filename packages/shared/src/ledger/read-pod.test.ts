import { describe, expect, it } from 'vitest';
import { readPodRequest, readRequestedClaims } from '../placement/demand.js';
import { VKE } from '../vke.js';
import { type KubePodLike, parseCardIndexes, readPodClaims } from './read-pod.js';

/** The seed's example as the scheduler leaves it: 1.2 compute over two cards, 8 GiB. */
const seedPod = (annotations: Record<string, string>): KubePodLike => ({
  metadata: {
    name: 'demo-7d9c-abcde',
    namespace: 'team-a',
    annotations: {
      [VKE.computePolicyAnnotation]: 'native-burst-share',
      'vke.volcengine.com/gpu-index-container-worker': '1,3',
      ...annotations,
    },
  },
  spec: {
    nodeName: 'l20-1',
    containers: [
      {
        name: 'worker',
        image: 'nginx',
        resources: {
          limits: { [VKE.coreResource]: '120', [VKE.memoryResource]: '8192' },
          requests: { [VKE.coreResource]: '120', [VKE.memoryResource]: '8192' },
        },
      },
    ],
  },
});

const seedClaim = {
  name: 'worker',
  type: 'mgpu',
  cards: [1, 3],
  perCard: { computePercent: 60, memoryMiB: 4096 },
};

describe('the ledger reads a pod', () => {
  it('reads the per-container multi-card annotation: 60 % and 4096 MiB on each of cards 1 and 3', () => {
    const pod = seedPod({ 'vke.volcengine.com/multiple-mgpu-worker': '2' });
    expect(readPodRequest(pod)?.evaluation.shares[0]).toMatchObject({ multiCard: true, cards: 2 });
    expect(readRequestedClaims(pod)).toEqual({
      claims: { key: 'team-a/demo-7d9c-abcde', node: 'l20-1', containers: [seedClaim] },
      computePolicy: 'native-burst-share',
    });
  });

  it('reads the older positional annotation the same way', () => {
    const pod = seedPod({ [VKE.positionalMultiCardAnnotation]: '2' });
    expect(readPodRequest(pod)?.evaluation.shares[0]).toMatchObject({ multiCard: true, cards: 2 });
    expect(readRequestedClaims(pod)?.claims.containers).toEqual([seedClaim]);
    expect(readPodClaims(pod)?.containers).toEqual([seedClaim]);
  });

  it('books whole nvidia cards whole, and skips containers the scheduler gave no cards', () => {
    const pod: KubePodLike = {
      metadata: {
        name: 'trainer',
        annotations: { 'vke.volcengine.com/gpu-index-container-trainer': '0,1' },
      },
      spec: {
        nodeName: 'v100-1',
        containers: [
          { name: 'trainer', resources: { limits: { [VKE.nvidiaResource]: '2' } } },
          { name: 'sidecar', resources: { limits: { [VKE.coreResource]: '50' } } },
          'not a container',
        ],
      },
    };
    expect(readPodClaims(pod)).toEqual({
      key: 'default/trainer',
      node: 'v100-1',
      containers: [
        {
          name: 'trainer',
          type: 'nvidia',
          cards: [0, 1],
          perCard: { computePercent: 100, memoryMiB: null },
        },
      ],
    });
  });

  it('takes a share from the resources when the rules refuse the container, requests over limits', () => {
    const pod: KubePodLike = {
      metadata: { name: 'odd', annotations: { 'vke.volcengine.com/gpu-index-container-odd': '2' } },
      spec: {
        nodeName: 'l20-1',
        containers: [
          {
            name: 'odd',
            // 1.5 cards without multi-card sharing breaks compute-whole-cards; the cluster took it.
            resources: {
              limits: { [VKE.coreResource]: '150' },
              requests: { [VKE.coreResource]: '150' },
            },
          },
        ],
      },
    };
    const claim = {
      name: 'odd',
      type: 'mgpu',
      cards: [2],
      perCard: { computePercent: 150, memoryMiB: null },
    };
    expect(readRequestedClaims(pod)?.claims.containers).toEqual([claim]);
    expect(readPodClaims(pod)?.containers).toEqual([claim]);
  });

  it('holds nothing without a node or with a malformed card annotation', () => {
    const { nodeName: _unbound, ...unbound } = seedPod({}).spec ?? {};
    expect(readPodClaims({ ...seedPod({}), spec: unbound })).toBeUndefined();
    const malformed = seedPod({ 'vke.volcengine.com/gpu-index-container-worker': '1,x' });
    expect(readPodClaims(malformed)?.containers).toEqual([]);
    expect(parseCardIndexes(' 1, 0 ')).toEqual([1, 0]);
    expect(parseCardIndexes('')).toBeUndefined();
  });
});
