import { type CardChoice, searchCards } from './card-search.js';
import type { CardPolicy, NodeState, PodDemand } from './types.js';

/**
 * Per-node memo of card-search results by demand: a scheduler places many identical replicas
 * and each placement changes one node, so the other nodes' searches are reused while their
 * `version` stands. Kept on the node state object under a symbol (a WeakMap of 1,000 nodes
 * costs the garbage collector noticeably more). A few demands per node are kept.
 */
interface SearchMemo {
  version: number;
  results: Map<string, CardChoice | null>;
}
const MEMO = Symbol('placePod memo');
type Memoized = NodeState & { [MEMO]?: SearchMemo };
const RESULTS_PER_NODE = 4;

/** The memo's key: the same containers, card policy and search limit give the same search. */
export function demandSignature(demand: PodDemand, cardPolicy: CardPolicy, limit: number): string {
  return JSON.stringify([demand.containers, cardPolicy, limit]);
}

/** The card layer for a node that passed the node layer, through the memo. */
export function searchMemoized(
  node: NodeState,
  demand: PodDemand,
  signature: string,
  cardPolicy: CardPolicy,
  limit: number,
): CardChoice | null {
  const memoized: Memoized = node;
  let memo = memoized[MEMO];
  if (memo !== undefined && memo.version === node.version) {
    const known = memo.results.get(signature);
    if (known !== undefined) return known;
  } else {
    memo = { version: node.version, results: new Map() };
    memoized[MEMO] = memo;
  }
  const choice = searchCards(node, demand.containers, cardPolicy, limit) ?? null;
  if (memo.results.size >= RESULTS_PER_NODE) {
    const oldest = memo.results.keys().next().value;
    if (oldest !== undefined) memo.results.delete(oldest);
  }
  memo.results.set(signature, choice);
  return choice;
}
