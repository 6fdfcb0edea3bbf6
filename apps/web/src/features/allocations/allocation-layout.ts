import type { NodeLayout } from '@mgpu/shared';
import type { AllocationState } from './allocation-events.js';

/** Whether two reads of a node's layout are alike: then its live node is kept as it is. */
const sameLayout = (a: NodeLayout, b: NodeLayout): boolean => {
  for (const key of Object.keys(b) as (keyof NodeLayout)[])
    if (key !== 'cards' && a[key] !== b[key]) return false;
  return (
    a.cards.length === b.cards.length &&
    a.cards.every(
      (card, index) =>
        card.index === b.cards[index]?.index && card.wholeNvidia === b.cards[index]?.wholeNvidia,
    )
  );
};

/**
 * The state with a fresh read of the GPU nodes' shapes (every 30 s, and after a reconnect). When
 * the same nodes come back, a node whose shape is alike keeps its layout object, so only the
 * others are rebuilt, and a read that changes nothing returns `state` itself: at 10,000 nodes
 * rebuilding all of them is a long task of ~0.5 s every read. Nodes joining or leaving make a
 * new `nodeNames`, which rebuilds the node list.
 */
export function withLayout(state: AllocationState, nodes: readonly NodeLayout[]): AllocationState {
  const next = new Map(
    nodes.filter((node) => node.resourceType !== null).map((node) => [node.name, node]),
  );
  const { layout } = state;
  if (next.size === layout.size && [...next.keys()].every((name) => layout.has(name))) {
    let changed: Map<string, NodeLayout> | undefined;
    for (const [name, node] of next) {
      const before = layout.get(name);
      if (before !== undefined && sameLayout(before, node)) continue;
      changed ??= new Map(layout);
      changed.set(name, node);
    }
    return changed === undefined ? state : { ...state, layout: changed };
  }
  return { ...state, layout: next, nodeNames: [...next.keys()].sort() };
}
