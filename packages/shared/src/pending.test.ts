import { describe, expect, it } from 'vitest';
import {
  indexAfterCursor,
  NO_POOL,
  type PendingPodLike,
  pendingGroups,
  pendingPodCursor,
  pendingPods,
  pendingPodsPerPool,
} from './pending.js';
import { buildNodeStates, type KubeNodeLike } from './placement/node-state.js';
import { poolSummaries } from './pools.js';
import { gpuIndexAnnotation, VKE } from './vke.js';

function gpuNode(name: string, policy: string, cards: number): KubeNodeLike {
  return {
    metadata: {
      name,
      labels: {
        [VKE.scheduleLabel]: 'mgpu',
        [VKE.defaultModelLabel]: 'NVIDIA-L20',
        [VKE.computePolicyLabel]: policy,
      },
    },
    status: {
      allocatable: {
        pods: '110',
        [VKE.coreResource]: String(cards * 100),
        [VKE.memoryResource]: String(cards * 46068),
      },
    },
  };
}

function mgpuPod(
  name: string,
  core: number,
  memoryMiB: number,
  extra: { node?: string; cards?: string; created?: string } = {},
): PendingPodLike {
  return {
    metadata: {
      name,
      namespace: 'team-a',
      creationTimestamp: extra.created ?? '2026-12-03T10:00:00Z',
      annotations: {
        [VKE.computePolicyAnnotation]: 'native-burst-share',
        ...(extra.cards ? { [gpuIndexAnnotation('main')]: extra.cards } : {}),
      },
      labels: { 'pod-template-hash': 'abc12' },
      ownerReferences: [{ kind: 'ReplicaSet', name: `${name.split('-')[0]}-abc12` }],
    },
    spec: {
      ...(extra.node ? { nodeName: extra.node } : {}),
      containers: [
        {
          name: 'main',
          resources: {
            requests: { [VKE.coreResource]: String(core), [VKE.memoryResource]: String(memoryMiB) },
            limits: { [VKE.coreResource]: String(core), [VKE.memoryResource]: String(memoryMiB) },
          },
        },
      ],
    },
  };
}

describe('pending pods', () => {
  const nodes = [gpuNode('nbs-0', 'native-burst-share', 1), gpuNode('fixed-0', 'fixed-share', 1)];
  // nbs-0's one card is 80 % taken: 20 % and the rest of its memory are left.
  const bound = mgpuPod('busy-abc12-x', 80, 8192, { node: 'nbs-0', cards: '0' });

  it('lists an unplaced pod with its rejections per group and what the room-short pool still fits', () => {
    const pods = [bound, mgpuPod('big-abc12-y', 50, 4096)];
    const states = buildNodeStates(nodes, pods);
    const pools = poolSummaries(states);
    const [pending, ...rest] = pendingPods(pods, states, pools);
    expect(rest).toEqual([]);
    expect(pending).toMatchObject({
      namespace: 'team-a',
      pod: 'big-abc12-y',
      workload: 'big',
      since: '2026-12-03T10:00:00.000Z',
      fitsNow: null,
      containers: [
        {
          name: 'main',
          type: 'mgpu',
          cards: 1,
          perCard: { computePercent: 50, memoryMiB: 4096 },
        },
      ],
    });
    const groups = Object.fromEntries(
      pending?.rejections.map((rejection) => [rejection.group, rejection.reason]) ?? [],
    );
    expect(groups).toEqual({
      'NVIDIA-L20/native-burst-share': 'compute',
      'NVIDIA-L20/fixed-share': 'policy',
    });
    // Only the pool that lacks room answers "what fits": its figure is the pool overview's.
    const nbs = pools.find((pool) => pool.pool === 'NVIDIA-L20/native-burst-share');
    expect(pending?.largestFits).toEqual([
      {
        pool: 'NVIDIA-L20/native-burst-share',
        largestFit: nbs?.largestFit,
        // Worded per the pod's own card count (1): what one card still gives.
        onCards: { cards: 1, computePercent: 20, memoryMiB: expect.any(Number) },
      },
    ]);
    expect(nbs?.largestFit.computePercent).toBe(20);
    expect(Object.fromEntries(pendingPodsPerPool(pendingPods(pods, states, pools)))).toEqual({
      'NVIDIA-L20/native-burst-share': 1,
    });
  });

  it('names the pool that would take a pod now, and counts a pod no pool suits under none', () => {
    const pods = [
      mgpuPod('small-abc12-z', 10, 2048, { created: '2026-12-03T10:00:01Z' }),
      // 150 % on one card breaks the pod's own rules: no pool can take it.
      mgpuPod('odd-abc12-w', 150, 2048, { created: '2026-12-03T10:00:00Z' }),
    ];
    const states = buildNodeStates(nodes, [bound, ...pods]);
    const pending = pendingPods([bound, ...pods], states, poolSummaries(states));
    // Oldest first; the bound pod is not pending.
    expect(pending.map((pod) => [pod.pod, pod.fitsNow])).toEqual([
      ['odd-abc12-w', null],
      ['small-abc12-z', 'NVIDIA-L20/native-burst-share'],
    ]);
    expect(pending[0]?.rejections.map((rejection) => rejection.group)).toEqual(['pod']);
    expect(pending[1]?.rejections).toEqual([]);
    expect(Object.fromEntries(pendingPodsPerPool(pending))).toEqual({
      [NO_POOL]: 1,
      'NVIDIA-L20/native-burst-share': 1,
    });
  });

  it('gives replicas asking the same one verdict, and each pod asking otherwise its own', () => {
    const pods = [
      mgpuPod('big-abc12-a', 50, 4096),
      mgpuPod('big-abc12-b', 50, 4096),
      mgpuPod('small-abc12-c', 10, 2048),
      mgpuPod('odd-abc12-d', 150, 2048),
      mgpuPod('big-abc12-e', 50, 4096),
    ];
    const states = buildNodeStates(nodes, [bound, ...pods]);
    const pools = poolSummaries(states);
    const together = pendingPods([bound, ...pods], states, pools);
    // Each pod alone, with nothing shared between them, reaches the same verdict.
    const alone = pods.flatMap((pod) => pendingPods([pod], states, pools));
    const byName = (list: typeof together) => Object.fromEntries(list.map((pod) => [pod.pod, pod]));
    expect(byName(together)).toEqual(byName(alone));
    expect(together.map((pod) => [pod.pod, pod.fitsNow ?? pod.message])).toEqual(
      expect.arrayContaining([
        ['small-abc12-c', 'NVIDIA-L20/native-burst-share'],
        ['big-abc12-a', expect.stringContaining('0/2 nodes')],
      ]),
    );
  });

  it('groups a workload’s replicas asking the same: the verdict once, every pod listed and counted', () => {
    const pods = [
      ...Array.from({ length: 30 }, (_, index) => mgpuPod(`big-abc12-${index}`, 50, 4096)),
      mgpuPod('small-abc12-c', 10, 2048),
    ];
    const states = buildNodeStates(nodes, [bound, ...pods]);
    const pools = poolSummaries(states);
    const groups = pendingGroups([bound, ...pods], states, pools);
    expect(groups.map((group) => [group.workload, group.podCount])).toEqual([
      ['big', 30],
      ['small', 1],
    ]);
    const [big] = groups;
    expect(big?.pods.map((pod) => pod.pod)).toEqual(
      pods
        .slice(0, 30)
        .map((pod) => pod.metadata?.name)
        .sort(),
    );
    // Per pod, as before: each pod carries its group's verdict.
    const perPod = pendingPods([bound, ...pods], states, pools);
    expect(perPod).toHaveLength(31);
    for (const pod of perPod.filter((entry) => entry.workload === 'big'))
      expect(pod.rejections).toEqual(big?.rejections);
    // Counted per pool by pods, whether from groups or from pods.
    expect(pendingPodsPerPool(groups)).toEqual(pendingPodsPerPool(perPod));
    // A cursor resumes after the pod it was made from, even once that pod has left.
    const cursor = pendingPodCursor(perPod[9] as (typeof perPod)[number]);
    expect(indexAfterCursor(perPod, cursor, pendingPodCursor)).toBe(10);
    expect(indexAfterCursor(perPod.slice(10), cursor, pendingPodCursor)).toBe(0);
  });
});
