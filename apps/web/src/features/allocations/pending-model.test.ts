import type { PendingGroup } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { applyPendingEvent, initialPendingGroups, pendingPodCount } from './pending-model.js';

const group = (key: string, since: string, podCount: number): PendingGroup => ({
  key,
  namespace: 'default',
  workload: key,
  since,
  containers: [],
  rejections: [],
  message: '',
  podCount,
  pods: [{ pod: `${key}-0`, since }],
});

describe('the pending groups a dashboard holds', () => {
  it('takes a snapshot in parts whole, then applies upserts and deletes by key, oldest first', () => {
    let state = initialPendingGroups();
    const a = group('a', '2026-12-03T10:00:01.000Z', 1500);
    const b = group('b', '2026-12-03T10:00:00.000Z', 1);
    state = applyPendingEvent(state, { type: 'snapshot', part: 0, more: true, groups: [a] });
    expect(state.groups).toBeUndefined();
    state = applyPendingEvent(state, { type: 'snapshot', part: 1, groups: [b] });
    expect(state.groups?.map((g) => g.key)).toEqual(['b', 'a']);
    state = applyPendingEvent(state, { type: 'upsert', groups: [{ ...a, podCount: 1501 }] });
    expect(pendingPodCount(state.groups ?? [])).toBe(1502);
    state = applyPendingEvent(state, { type: 'delete', groups: [b] });
    expect(state.groups?.map((g) => [g.key, g.podCount])).toEqual([['a', 1501]]);
  });
});
