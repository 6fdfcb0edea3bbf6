import { describe, expect, it } from 'vitest';
import { applyEvent, initialAllocationState } from './allocation-events.js';
import { CLUSTER, podRecords, snapshot, upsert } from './allocation-fixtures.js';
import { withLayout } from './allocation-layout.js';
import { LiveNodes } from './live-nodes.js';

describe('LiveNodes', () => {
  it('rebuilds only the node a batch touched, and its pool', () => {
    const live = new LiveNodes();
    const started = applyEvent(withLayout(initialAllocationState, CLUSTER), snapshot([]));
    const [l20, v100] = live.nodes(started);
    const pools = live.pools(started);

    const next = applyEvent(started, upsert(podRecords('a')));
    const [l20After, v100After] = live.nodes(next);
    expect(v100After).toBe(v100);
    expect(l20After).not.toBe(l20);
    expect(l20After?.cards[1]?.usedCompute).toBe(60);
    const poolsAfter = live.pools(next);
    expect(poolsAfter[1]).toBe(pools[1]);
    expect(poolsAfter[0]?.compute.allocated).toBe(120);
  });

  it('names the nodes that hold records but have no layout, until the layout lists them', () => {
    const live = new LiveNodes();
    const held = applyEvent(initialAllocationState, upsert(podRecords('a', { node: 'new-1' })));
    expect(live.unknownNodes(held)).toEqual(['new-1']);
    const moved = applyEvent(held, upsert(podRecords('a', { node: 'l20-1' })));
    expect(live.unknownNodes(moved)).toEqual(['l20-1']);
    expect(live.unknownNodes(withLayout(moved, CLUSTER))).toEqual([]);
  });
});
