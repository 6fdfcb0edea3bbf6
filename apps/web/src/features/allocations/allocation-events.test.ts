import { describe, expect, it } from 'vitest';
import {
  type AllocationState,
  applyEvent,
  applyEvents,
  initialAllocationState,
} from './allocation-events.js';
import {
  CLUSTER,
  layoutNode,
  podRecords,
  remove,
  snapshot,
  snapshotInParts,
  upsert,
} from './allocation-fixtures.js';
import { withLayout } from './allocation-layout.js';

const workloadsListed = (state: AllocationState) =>
  state.sorted.toArray().map((record) => record.workload);

const started = applyEvent(withLayout(initialAllocationState, CLUSTER), snapshot([]));

describe('applyEvents', () => {
  it('replaces the records with a snapshot in three parts only when its last part arrives', () => {
    const before = applyEvent(started, upsert(podRecords('gone')));
    const parts = snapshotInParts(
      ['a', 'b', 'c'].flatMap((name) => podRecords(name)),
      2,
    );
    expect(parts).toHaveLength(3);

    const partway = applyEvents(before, parts.slice(0, 2));
    expect(workloadsListed(partway)).toEqual(['gone', 'gone']);
    expect(partway.records).toBe(before.records);
    expect(partway.revision).toBe(before.revision);

    const after = applyEvents(partway, parts.slice(2));
    expect(workloadsListed(after)).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
    expect(after.byNode.get('l20-1')).toHaveLength(6);
    expect(after.revision).toBe(before.revision + 1);
    expect(after.snapshotParts).toBeUndefined();
  });

  it('drops the parts of a snapshot cut off by a reconnect, keeping what was shown', () => {
    const before = applyEvent(started, upsert(podRecords('kept')));
    const [first, second, third] = snapshotInParts(
      ['a', 'b', 'c'].flatMap((name) => podRecords(name)),
      2,
    );
    if (!first || !second || !third) throw new Error('three parts expected');
    // The second part never came: the third cannot make a whole snapshot.
    const after = applyEvents(before, [first, third]);
    expect(workloadsListed(after)).toEqual(['kept', 'kept']);
    expect(after.snapshotParts).toBeUndefined();
  });

  it('leaves the state it was given as it was, sharing what a batch did not touch', () => {
    const one = applyEvent(
      started,
      upsert([...podRecords('a'), ...podRecords('v', { node: 'v100-1' })]),
    );
    const two = applyEvent(one, remove(podRecords('a')));

    expect(workloadsListed(one)).toEqual(['a', 'a', 'v', 'v']);
    expect(one.byNode.get('l20-1')).toHaveLength(2);
    expect(workloadsListed(two)).toEqual(['v', 'v']);
    expect(two.byNode.has('l20-1')).toBe(false);
    expect(two.byNode.get('v100-1')).toBe(one.byNode.get('v100-1'));
    expect(two.byNode.changedKeys(one.byNode)).toEqual(['l20-1']);
  });

  it('moves a re-reported instance off the node it left', () => {
    const one = applyEvent(started, upsert(podRecords('a')));
    const two = applyEvent(one, upsert(podRecords('a', { node: 'v100-1' })));
    expect(two.byNode.has('l20-1')).toBe(false);
    expect(two.byNode.get('v100-1')?.map((record) => record.card)).toEqual([1, 3]);
    expect(two.records.size).toBe(2);
  });

  it('offers a namespace or workload as a filter choice only while records name it', () => {
    const one = applyEvents(started, [
      upsert(podRecords('a', { namespace: 'team-b' })),
      upsert(podRecords('b')),
    ]);
    expect(one.namespaces.names).toEqual(['default', 'team-b']);
    expect(one.workloads.names).toEqual(['a', 'b']);
    // Another instance of a known workload changes no choice: the same list stays.
    const two = applyEvent(one, upsert(podRecords('b', { node: 'v100-1' })));
    expect(two.namespaces.names).toBe(one.namespaces.names);
    const three = applyEvent(two, remove(podRecords('a', { namespace: 'team-b' })));
    expect(three.namespaces.names).toEqual(['default']);
    expect(three.workloads.names).toEqual(['b']);
  });

  it('returns the same state for an event that changes nothing held', () => {
    expect(applyEvents(started, [])).toBe(started);
    const deletedUnknown = applyEvent(started, remove(podRecords('never')));
    expect(deletedUnknown.records).toBe(started.records);
  });
});

describe('withLayout', () => {
  it('keeps the state for a re-read of the same nodes, and a new list only when nodes join', () => {
    expect(
      withLayout(
        started,
        CLUSTER.map((node) => ({ ...node })),
      ),
    ).toBe(started);

    const cordoned = withLayout(started, [
      { ...layoutNode('l20-1', 'NVIDIA-L20', 'native-burst-share'), schedulable: false },
      layoutNode('v100-1', 'Tesla-V100', 'fixed-share', 8),
    ]);
    expect(cordoned.layout.get('l20-1')?.schedulable).toBe(false);
    expect(cordoned.layout.get('v100-1')).toBe(started.layout.get('v100-1'));
    expect(cordoned.nodeNames).toBe(started.nodeNames);

    const grown = withLayout(cordoned, [...CLUSTER, layoutNode('a100-1', 'A100', 'fixed-share')]);
    expect(grown.nodeNames).toEqual(['a100-1', 'l20-1', 'v100-1']);
  });

  it('leaves out nodes without a GPU resource', () => {
    const state = withLayout(initialAllocationState, [
      ...CLUSTER,
      { ...layoutNode('cpu-1', '', ''), resourceType: null },
    ]);
    expect(state.nodeNames).toEqual(['l20-1', 'v100-1']);
  });
});
