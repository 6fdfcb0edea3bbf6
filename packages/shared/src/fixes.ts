/**
 * The fixes a broken rule suggests, in a form a program can apply: the request fields to change
 * and their new values. They are read from the same parameters the words are written from, and
 * the rules offer a value only when, applied, it passes the rules of that field
 * (`container-rules.ts`, `accepts`), so the button and the sentence never disagree.
 */
import { MULTI_CARD_POLICY } from './request-rules.js';
import type { FieldValue, RuleId, SuggestedFix, Violation } from './rules.js';

/** `containers.0.gpu.compute` → `containers.0.gpu.cards`: a field beside the one at `path`. */
const sibling = (path: string, field: string) =>
  `${path.slice(0, path.lastIndexOf('.') + 1)}${field}`;

const set = (path: string, value: FieldValue): SuggestedFix => ({ changes: [{ path, value }] });

type FixCatalog = {
  readonly [R in RuleId]?: (violation: Extract<Violation, { rule: R }>) => SuggestedFix[];
};

const FIXES: FixCatalog = {
  'compute-format': ({ path, params }) => params.suggestions.map((value) => set(path, value)),
  'compute-whole-cards': ({ path, params }) => [
    ...params.wholeCards.map((value) => set(path, value)),
    ...(params.multiCard
      ? [
          {
            changes: [
              { path: sibling(path, 'multiCard'), value: true },
              { path: sibling(path, 'cards'), value: params.multiCard.cards },
            ],
          },
        ]
      : []),
  ],
  'per-card-compute-precision': ({ path, params }) => [
    ...params.computeSuggestions.map((value) => set(path, value)),
    ...params.cardSuggestions.map((cards) => set(sibling(path, 'cards'), cards)),
  ],
  // More cards, or at most one whole card per card (which brings all its memory): both are said.
  'per-card-compute-max': ({ path, params }) => [
    ...(params.cardsNeeded ? [set(sibling(path, 'cards'), params.cardsNeeded)] : []),
    {
      changes: [
        { path, value: params.maxCompute },
        { path: sibling(path, 'memoryGiB'), value: '' },
      ],
    },
  ],
  'memory-required': ({ path, params }) => [set(path, params.minimumGiB)],
  'memory-with-whole-card': ({ path }) => [set(path, '')],
  'per-card-memory-integer': ({ path, params }) =>
    params.suggestions.map((value) => set(path, value)),
  'per-card-memory-range': ({ path, params }) => [
    set(path, params.boundGiB),
    ...(params.cardsSuggestion ? [set(sibling(path, 'cards'), params.cardsSuggestion)] : []),
  ],
  'multi-card-policy': ({ path }) => [set(path, MULTI_CARD_POLICY)],
  'model-unknown': ({ path, params }) => params.known.map((model) => set(path, model)),
  'per-card-memory-exceeds-model': ({ path, params }) => [
    ...(Number(params.maxGiB) > 0 ? [set(path, params.maxGiB)] : []),
    ...(params.cardsSuggestion
      ? [
          {
            changes: [
              { path: sibling(path, 'multiCard'), value: true },
              { path: sibling(path, 'cards'), value: params.cardsSuggestion },
            ],
          },
        ]
      : []),
  ],
  'cards-exceed-node': ({ path, params }) =>
    params.maxCards > 0
      ? [set(path, params.field === 'compute' ? String(params.maxCards) : params.maxCards)]
      : [],
  'name-format': ({ path, params }) => (params.suggestion ? [set(path, params.suggestion)] : []),
  'namespace-format': ({ path, params }) =>
    params.suggestion ? [set(path, params.suggestion)] : [],
  'container-name-format': ({ path, params }) =>
    params.suggestion ? [set(path, params.suggestion)] : [],
  'statefulset-name': ({ path, params }) =>
    params.suggestion ? [set(path, params.suggestion)] : [],
  'replicas-exceed-cluster': ({ path, params }) => (params.max > 0 ? [set(path, params.max)] : []),
  // Fewer replicas is the one fix a form can apply; a smaller request per pod is the operator's call.
  'quota-exceeded': ({ params }) =>
    params.surge === undefined && params.replicas > 1 && params.maxReplicas > 0
      ? [set('replicas', params.maxReplicas)]
      : [],
  'multi-card-mgpu-only': ({ path }) => [set(path, false)],
  'model-conflict': ({ path, params }) => [set(path, params.other)],
};

/** The fixes a broken rule suggests, each as the field changes that make it. */
export function fixesOf(violation: Violation): SuggestedFix[] {
  const fixes = FIXES[violation.rule] as ((v: Violation) => SuggestedFix[]) | undefined;
  return fixes ? fixes(violation) : [];
}

/** The request (as JSON-shaped data) with a fix applied; the input is not changed. */
export function applyFix<T extends object>(request: T, fix: SuggestedFix): T {
  const copy = structuredClone(request) as Record<string, unknown>;
  for (const { path, value } of fix.changes) {
    const keys = path.split('.');
    const last = keys.pop();
    let node: Record<string, unknown> = copy;
    for (const key of keys) {
      const next = node[key];
      if (typeof next !== 'object' || next === null) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    if (last !== undefined) node[last] = value;
  }
  return copy as T;
}
