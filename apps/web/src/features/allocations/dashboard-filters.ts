/**
 * The dashboard's state in the URL (deep links): the five filters, the search box, and which
 * node and instance are open. Parameter names are short and stable, because people paste them.
 */
export interface DashboardFilters {
  model: string;
  policy: string;
  /** Also opens the node's card grid. */
  node: string;
  namespace: string;
  workload: string;
  search: string;
}

export interface DashboardState extends DashboardFilters {
  /** Record id (`<namespace>/<pod>/<container>/<card>`) of the open instance detail. */
  instance: string;
}

const PARAMS: Record<keyof DashboardState, string> = {
  model: 'model',
  policy: 'policy',
  node: 'node',
  namespace: 'namespace',
  workload: 'workload',
  search: 'q',
  instance: 'instance',
};

const KEYS = Object.keys(PARAMS) as (keyof DashboardState)[];

export function readDashboardState(params: URLSearchParams): DashboardState {
  const state = {} as DashboardState;
  for (const key of KEYS) state[key] = params.get(PARAMS[key]) ?? '';
  return state;
}

/** The search params for `state`, keeping parameters that are not the dashboard's. */
export function writeDashboardState(
  params: URLSearchParams,
  change: Partial<DashboardState>,
): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of KEYS) {
    if (!(key in change)) continue;
    // Kept as typed: trimming would eat the space a person is typing into the search box.
    const value = change[key] ?? '';
    if (value.trim()) next.set(PARAMS[key], value);
    else next.delete(PARAMS[key]);
  }
  return next;
}

export const filtersOf = (state: DashboardState): DashboardFilters => ({
  model: state.model,
  policy: state.policy,
  node: state.node,
  namespace: state.namespace,
  workload: state.workload,
  search: state.search,
});

/** The search's words, lower-cased: split once per filtering of a list, not once per row. */
export const searchWords = (search: string): string[] =>
  search.toLowerCase().split(/\s+/).filter(Boolean);

/** What a search looks through: the fields, lower-cased, kept apart so no word spans two. */
export const searchText = (fields: readonly string[]): string =>
  fields.join('\u0000').toLowerCase();

/** Every word (from `searchWords`) occurs in `text` (from `searchText`). */
export const matchesWords = (words: readonly string[], text: string): boolean =>
  words.every((word) => text.includes(word));

/** Every whitespace-separated word of the search occurs in one of the fields (case-insensitive). */
export function matchesSearch(search: string, fields: readonly string[]): boolean {
  const words = searchWords(search);
  return words.length === 0 || matchesWords(words, searchText(fields));
}

/** Suggestions the node box offers at most: the browser lists them all as the box opens. */
const NODE_SUGGESTIONS = 100;

/**
 * The node names that contain what is typed, the first hundred: at 10,000 nodes a suggestion
 * per node made 10,000 elements the page kept, and a list nobody scrolls.
 */
export function nodeSuggestions(nodes: readonly string[], typed: string): readonly string[] {
  const wanted = typed.trim().toLowerCase();
  const matching: string[] = [];
  for (const node of nodes) {
    if (matching.length === NODE_SUGGESTIONS) break;
    if (!wanted || node.toLowerCase().includes(wanted)) matching.push(node);
  }
  return matching;
}
