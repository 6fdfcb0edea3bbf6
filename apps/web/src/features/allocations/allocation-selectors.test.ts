import { describe, expect, it } from 'vitest';
import { applyEvent, applyEvents, initialAllocationState } from './allocation-events.js';
import {
  CLUSTER,
  layoutNode,
  NO_FILTER,
  podRecords,
  remove,
  snapshot,
  upsert,
} from './allocation-fixtures.js';
import { withLayout } from './allocation-layout.js';
import {
  buildLiveNode,
  createFilterOptionsSelector,
  filterNodes,
  selectInstances,
  sumNodeBuckets,
} from './allocation-selectors.js';

const l20 = layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share');
const started = applyEvent(withLayout(initialAllocationState, CLUSTER), snapshot([]));

describe('allocation selectors', () => {
  it('shows an instance on its cards, and a delete takes it off the card again', () => {
    const held = applyEvents(started, [
      upsert(podRecords('a')),
      upsert(podRecords('b', { namespace: 'team-b' })),
    ]);
    const node = buildLiveNode(l20, held.byNode.get('l20-1'));
    expect(node.cards.map((card) => card.holders.map((holder) => holder.namespace))).toEqual([
      [],
      ['default', 'team-b'],
      [],
      ['default', 'team-b'],
    ]);
    expect(node.cards[1]).toMatchObject({ usedCompute: 120, usedMemoryMiB: 8192, instances: 2 });

    const deleted = applyEvent(held, remove(podRecords('b', { namespace: 'team-b' })));
    const after = buildLiveNode(l20, deleted.byNode.get('l20-1'));
    expect(after.cards[1]?.holders.map((holder) => holder.namespace)).toEqual(['default']);
    expect(after.cards[1]).toMatchObject({ usedCompute: 60, instances: 1 });
  });

  it('leaves a card given whole to a pod full, with no mGPU holders on it', () => {
    const whole = {
      ...l20,
      resourceType: 'nvidia' as const,
      cards: l20.cards.map((card) => ({ ...card, wholeNvidia: true })),
    };
    const node = buildLiveNode(whole, podRecords('a'));
    expect(node.cards.every((card) => card.holders.length === 0 && card.usedCompute === 100)).toBe(
      true,
    );
    // Whole-card nodes have no mGPU usage buckets.
    expect(sumNodeBuckets([node]).compute).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('keeps the instances and nodes that the filters and the search match', () => {
    const state = applyEvents(started, [
      upsert(podRecords('a')),
      upsert(podRecords('b', { namespace: 'team-b', node: 'v100-1' })),
    ]);
    const only = (filters: Partial<typeof NO_FILTER>) => ({ ...NO_FILTER, ...filters });
    expect(selectInstances(state, only({ model: 'Tesla-V100' })).map((r) => r.workload)).toEqual([
      'b',
      'b',
    ]);
    expect(selectInstances(state, only({ search: 'team-b WORKER' }))).toHaveLength(2);

    const nodes = CLUSTER.map((layout) => buildLiveNode(layout, state.byNode.get(layout.name)));
    const names = (filters: Partial<typeof NO_FILTER>) =>
      filterNodes(nodes, only(filters), () => selectInstances(state, only(filters))).map(
        (node) => node.layout.name,
      );
    expect(names({ namespace: 'team-b' })).toEqual(['v100-1']);
    // A search keeps a node whose name matches even without a matching instance.
    expect(names({ search: 'l20' })).toEqual(['l20-1']);
    expect(names({ policy: 'fixed-share' })).toEqual(['v100-1']);
    expect(filterNodes(nodes, NO_FILTER, () => [])).toBe(nodes);
  });

  it('offers the same filter choices object until a choice appears or goes', () => {
    const options = createFilterOptionsSelector();
    const one = applyEvent(started, upsert(podRecords('a')));
    const first = options(one);
    expect(first).toEqual({
      models: ['NVIDIA-L20', 'Tesla-V100'],
      policies: ['fixed-share', 'native-burst-share'],
      namespaces: ['default'],
      workloads: ['a'],
      nodes: ['l20-1', 'v100-1'],
    });
    expect(options(applyEvent(one, upsert(podRecords('a', { node: 'v100-1' }))))).toBe(first);
    expect(
      options(applyEvent(one, upsert(podRecords('c', { namespace: 'team-c' })))).namespaces,
    ).toEqual(['default', 'team-c']);
  });
});
