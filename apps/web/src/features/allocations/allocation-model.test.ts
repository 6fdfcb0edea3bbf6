import {
  type AllocationEvent,
  type PodLike,
  podAllocationRecords,
  snapshotParts,
} from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { layoutNode, NO_FILTER, seedPod } from './allocation-fixtures.js';
import { AllocationModel } from './allocation-model.js';
import type { DashboardFilters } from './dashboard-filters.js';

const event = (type: AllocationEvent['type'], pod: PodLike): AllocationEvent => ({
  type,
  records: podAllocationRecords(pod, undefined),
  at: new Date().toISOString(),
});

function cluster() {
  const model = new AllocationModel();
  model.setLayout([
    layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share'),
    layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8),
  ]);
  model.apply([{ type: 'snapshot', records: [], at: new Date().toISOString() }]);
  return model;
}

describe('AllocationModel', () => {
  it('shows a new workload on its two cards at 60 % each, and frees them when it goes', () => {
    const model = cluster();
    model.apply([event('upsert', seedPod('demo'))]);

    expect(
      model.instances(NO_FILTER).map((r) => [r.pod, r.card, r.requested.computePercent]),
    ).toEqual([
      ['demo-7d9c-abcde', 1, 60],
      ['demo-7d9c-abcde', 3, 60],
    ]);
    const node = model.node('l20-1');
    expect(
      node?.cards.map((card) => [card.usedCompute, card.usedMemoryMiB, card.instances]),
    ).toEqual([
      [0, 0, 0],
      [60, 4096, 1],
      [0, 0, 0],
      [60, 4096, 1],
    ]);
    expect(node?.cards[1]?.holders.map((holder) => holder.container)).toEqual(['worker']);
    const [l20] = model.pools({ model: 'NVIDIA-L20', policy: '' });
    expect(l20).toMatchObject({
      compute: { allocatable: 400, allocated: 120 },
      memoryMiB: { allocated: 8192 },
      cardsPartlyUsed: 2,
      cardsIdle: 2,
    });

    model.apply([event('delete', seedPod('demo'))]);
    expect(model.instances(NO_FILTER)).toEqual([]);
    expect(model.node('l20-1')?.cards.every((card) => card.instances === 0)).toBe(true);
    expect(model.pools(NO_FILTER)[0]?.compute.allocated).toBe(0);
  });

  it('applies a batch in order, and a snapshot replaces everything before it', () => {
    const model = cluster();
    model.apply([
      event('upsert', seedPod('a')),
      event('upsert', seedPod('b', { namespace: 'team-b' })),
    ]);
    expect(model.recordCount).toBe(4);
    model.apply([
      event('upsert', seedPod('c')),
      event('snapshot', seedPod('b', { namespace: 'team-b' })),
    ]);
    expect(model.instances(NO_FILTER).map((r) => r.namespace)).toEqual(['team-b', 'team-b']);
    expect(model.node('l20-1')?.cards[1]?.usedCompute).toBe(60);
  });

  it('applies a snapshot in parts as one once its last part is in', () => {
    const model = cluster();
    model.apply([event('upsert', seedPod('gone'))]);
    const records = ['a', 'b', 'c'].flatMap((name) =>
      podAllocationRecords(seedPod(name), undefined),
    );
    const at = new Date().toISOString();
    const parts = snapshotParts(records, 2).map(
      ({ fields, items }): AllocationEvent => ({ type: 'snapshot', ...fields, records: items, at }),
    );
    expect(parts.length).toBe(3);
    const versionBefore = model.version;
    // The first parts change nothing the page shows: the old records stay until the last.
    model.apply(parts.slice(0, 2));
    expect(model.version).toBe(versionBefore);
    expect(model.instances(NO_FILTER).map((r) => r.workload)).toEqual(['gone', 'gone']);
    model.apply(parts.slice(2));
    expect(model.instances(NO_FILTER).map((r) => r.workload)).toEqual([
      'a',
      'a',
      'b',
      'b',
      'c',
      'c',
    ]);
    expect(model.node('l20-1')?.cards[1]?.instances).toBe(3);
  });

  it('replaces a snapshot cut off by a reconnect with the fresh one that follows', () => {
    const model = cluster();
    const at = new Date().toISOString();
    const asParts = (names: string[]) =>
      snapshotParts(
        names.flatMap((name) => podAllocationRecords(seedPod(name), undefined)),
        2,
      ).map(
        ({ fields, items }): AllocationEvent => ({
          type: 'snapshot',
          ...fields,
          records: items,
          at,
        }),
      );
    const [cutOff] = asParts(['old-a', 'old-b']);
    if (!cutOff) throw new Error('a part expected');
    model.apply([cutOff]);
    // The reconnect brings a fresh snapshot from its first part: nothing of the cut-off one stays.
    model.apply(asParts(['x', 'y']));
    expect(model.instances(NO_FILTER).map((r) => r.workload)).toEqual(['x', 'x', 'y', 'y']);
    expect(model.hasSnapshot).toBe(true);
  });

  it('filters by namespace, workload, model and search, and keeps only nodes that match', () => {
    const model = cluster();
    model.apply([
      event('upsert', seedPod('a')),
      event('upsert', seedPod('b', { namespace: 'team-b' })),
    ]);
    const only = (filters: Partial<DashboardFilters>) => ({ ...NO_FILTER, ...filters });

    expect(model.instances(only({ namespace: 'team-b' })).map((r) => r.workload)).toEqual([
      'b',
      'b',
    ]);
    expect(model.instances(only({ workload: 'a' }))).toHaveLength(2);
    expect(model.instances(only({ model: 'Tesla-V100' }))).toEqual([]);
    expect(model.instances(only({ search: 'TEAM-B worker' }))).toHaveLength(2);
    expect(model.nodes(only({ namespace: 'team-b' })).map((n) => n.layout.name)).toEqual(['l20-1']);
    expect(model.nodes(only({ policy: 'fixed-share' })).map((n) => n.layout.name)).toEqual([
      'v100-1',
    ]);
    expect(model.pools({ model: '', policy: 'fixed-share' }).map((pool) => pool.pool)).toEqual([
      'Tesla-V100/fixed-share',
    ]);
  });

  it('counts cards per usage bucket for the utilisation chart', () => {
    const model = cluster();
    model.apply([event('upsert', seedPod('a'))]);
    // 12 cards: 10 idle; 2 at 60 % compute (bucket 51–75) and 4096/46068 memory (1–25).
    expect(model.utilisation(NO_FILTER)).toEqual({
      compute: [10, 0, 0, 2, 0, 0],
      memory: [10, 2, 0, 0, 0, 0],
    });
  });

  it('keeps pools, usage buckets and nodes equal to a fresh count through any mix of changes', () => {
    const model = cluster();
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const live = new Map<string, PodLike>();
    for (let step = 1; step <= 300; step++) {
      const name = `w${random(20)}`;
      if (live.has(name) && random(3) === 0) {
        model.apply([event('delete', live.get(name) as PodLike)]);
        live.delete(name);
      } else {
        // Re-reports land on either node: a record that moves leaves its old node's figures.
        const pod = seedPod(name);
        if (pod.spec) pod.spec.nodeName = random(2) === 0 ? 'l20-1' : 'v100-1';
        live.set(name, pod);
        model.apply([event('upsert', pod)]);
      }
      if (step % 50 !== 0) continue;
      const fresh = cluster();
      fresh.apply([
        { type: 'snapshot', records: model.instances(NO_FILTER), at: new Date().toISOString() },
      ]);
      for (const filters of [NO_FILTER, { ...NO_FILTER, model: 'Tesla-V100' }]) {
        expect(model.pools(filters)).toEqual(fresh.pools(filters));
        expect(model.utilisation(filters)).toEqual(fresh.utilisation(filters));
        expect(model.nodes(filters)).toEqual(fresh.nodes(filters));
      }
    }
  });

  it('keeps what a re-read of the same layout brings, and rebuilds only a node whose shape changed', () => {
    const model = cluster();
    model.apply([event('upsert', seedPod('a'))]);
    const before = {
      version: model.version,
      v100: model.node('v100-1'),
      pools: model.pools(NO_FILTER),
    };
    model.setLayout([
      layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share'),
      layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8),
    ]);
    expect(model.version).toBe(before.version);
    expect(model.pools(NO_FILTER)).toBe(before.pools);

    // l20-1 is cordoned, and one of its cards given whole to a pod: only it is rebuilt.
    const cordoned = {
      ...layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share'),
      schedulable: false,
    };
    cordoned.cards[0] = { index: 0, wholeNvidia: true };
    model.setLayout([cordoned, layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8)]);
    expect(model.version).toBeGreaterThan(before.version);
    expect(model.node('v100-1')).toBe(before.v100);
    expect(model.node('l20-1')?.layout.schedulable).toBe(false);
    const fresh = new AllocationModel();
    fresh.setLayout([cordoned, layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8)]);
    fresh.apply([event('snapshot', seedPod('a'))]);
    expect(model.pools(NO_FILTER)).toEqual(fresh.pools(NO_FILTER));
    expect(model.nodes(NO_FILTER)).toEqual(fresh.nodes(NO_FILTER));
    expect(model.utilisation(NO_FILTER)).toEqual(fresh.utilisation(NO_FILTER));

    // A node that joins rebuilds the list.
    model.setLayout([
      cordoned,
      layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8),
      layoutNode('v100-2', 'Tesla-V100', 'fixed-share', 8),
    ]);
    expect(model.nodes(NO_FILTER).map((node) => node.layout.name)).toEqual([
      'l20-1',
      'v100-1',
      'v100-2',
    ]);
  });

  it('notices records on nodes it has no layout for, so the page re-reads the nodes', () => {
    const model = new AllocationModel();
    model.apply([event('snapshot', seedPod('a'))]);
    expect(model.unknownNodes).toEqual(['l20-1']);
    model.setLayout([layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share')]);
    expect(model.unknownNodes).toEqual([]);
  });

  it('keeps the instance list in order and the filter choices right through any mix of changes', () => {
    const model = cluster();
    // A fixed pseudo-random walk: creates, re-reports and deletes in three namespaces.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const live = new Map<string, PodLike>();
    for (let step = 0; step < 400; step++) {
      const name = `w${random(40)}`;
      const namespace = ['default', 'team-a', 'team-b'][random(3)] ?? 'default';
      const key = `${namespace}/${name}`;
      if (live.has(key) && random(2) === 0) {
        model.apply([event('delete', live.get(key) as PodLike)]);
        live.delete(key);
      } else {
        const pod = seedPod(name, { namespace });
        live.set(key, pod);
        model.apply([event('upsert', pod)]);
      }
    }
    const expected = [...live.values()]
      .flatMap((pod) => podAllocationRecords(pod, undefined))
      .map((record) => record.id);
    const byListOrder = (id: string) => id.split('/');
    expect(model.instances(NO_FILTER).map((record) => record.id)).toEqual(
      [...expected].sort((a, b) => {
        const [x, y] = [byListOrder(a).join('\u0000'), byListOrder(b).join('\u0000')];
        return x < y ? -1 : x > y ? 1 : 0;
      }),
    );
    expect(model.options().namespaces).toEqual(
      [...new Set([...live.values()].map((pod) => pod.metadata?.namespace ?? ''))].sort(),
    );
  });
});
