/**
 * Rejections ordered for an operator (issue 27, "explanations ranked"): the node groups their
 * own choices rule out (another GPU model when they picked one, another policy or resource type)
 * fold into one line, and the rest come closest first — the group whose best node has the most of
 * what is missing leads, with its shortfall in numbers.
 */
import { translationOf, translator } from '../i18n.js';
import type { Lang } from '../rules.js';
import type { RejectionCode, RejectionParams, RejectionReason } from './rejections.js';

/** What a rejection needs for ranking: the shape `Rejection` and the wire's rejections share. */
interface RankedRejection {
  group: string;
  nodes?: readonly string[];
  /** A `RejectionReason`; the wire carries it as text. */
  reason: string;
  code: RejectionCode;
  params: RejectionParams;
}

/** Reasons that follow from what the operator chose, not from how full the cluster is. */
const CHOSEN_REASONS: ReadonlySet<string> = new Set<RejectionReason>([
  'resource-type',
  'policy',
  'model',
  'node-affinity',
]);

/** The node groups ruled out by the operator's own choices, as one line. */
export interface ExcludedGroups {
  groups: string[];
  /** Their nodes in total; absent when nodes are withheld from this operator. */
  nodes?: number;
  /** Which choices rule them out (`RejectionReason`s), each once, in a stable order. */
  reasons: string[];
}

export interface RankedRejections<R extends RankedRejection> {
  /** Closest first: the first is the one worth reading. */
  ranked: R[];
  excluded: ExcludedGroups | undefined;
}

/**
 * How close a group came, 0–1: the share of what is needed that its best node has free; a
 * fragmented group has the room in total (1); a group only full of pods or cordoned, 0.
 */
function closeness(rejection: RankedRejection): number {
  const p = rejection.params;
  if (p.freeComputePercent !== undefined && p.computePercent)
    return Math.min(1, p.freeComputePercent / p.computePercent);
  if (p.freeMemoryMiB !== undefined && p.memoryMiB)
    return Math.min(1, p.freeMemoryMiB / p.memoryMiB);
  switch (rejection.reason) {
    case 'fragmented':
      return 1;
    case 'instance-limit':
    case 'compute':
    case 'memory':
    case 'idle-cards':
      return 0.5;
    default:
      return 0;
  }
}

/** The rejections split into the operator's own exclusions (folded) and the rest, closest first. */
export function rankRejections<R extends RankedRejection>(
  rejections: readonly R[],
): RankedRejections<R> {
  const chosen = rejections.filter(
    (rejection) => rejection.group !== 'pod' && CHOSEN_REASONS.has(rejection.reason),
  );
  const rest = rejections.filter((rejection) => !chosen.includes(rejection));
  // Only worth folding when something else is left to explain; otherwise each line is the answer.
  const fold = chosen.length > 0 && rest.length > 0;
  const ranked = (fold ? rest : [...rejections])
    .map((rejection, index) => ({ rejection, index, score: closeness(rejection) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ rejection }) => rejection);
  if (!fold) return { ranked, excluded: undefined };
  const groups = [...new Set(chosen.map((rejection) => rejection.group))];
  const counted = chosen.every((rejection) => rejection.nodes !== undefined);
  const reasons = [...CHOSEN_REASONS].filter((reason) =>
    chosen.some((rejection) => rejection.reason === reason),
  );
  return {
    ranked,
    excluded: {
      groups,
      reasons,
      ...(counted
        ? { nodes: chosen.reduce((sum, rejection) => sum + (rejection.nodes?.length ?? 0), 0) }
        : {}),
    },
  };
}

const EXCLUDED_ZH = {
  line: '另有 {count} 组节点（{groups}）不符合你选择的{choices}，不在考虑之内',
  separator: '、',
  'resource-type': 'GPU 资源类型',
  policy: '算力分配策略',
  model: '显卡类型',
  'node-affinity': '节点亲和性',
} as const;

const EXCLUDED = {
  'zh-CN': translator<typeof EXCLUDED_ZH>(EXCLUDED_ZH),
  en: translator<typeof EXCLUDED_ZH>(
    translationOf<typeof EXCLUDED_ZH>()({
      line: '{count} other node group(s) ({groups}) do not match the {choices} you chose, so they are not considered',
      separator: ', ',
      'resource-type': 'GPU resource type',
      policy: 'compute policy',
      model: 'GPU model',
      'node-affinity': 'node affinity',
    }),
  ),
};

/** The folded line: "另有 6 组节点（…）不符合你选择的显卡类型，不在考虑之内". */
export function excludedLine(excluded: ExcludedGroups, lang: Lang): string {
  const words = EXCLUDED[lang];
  const separator = words('separator');
  const choices = excluded.reasons.map((reason) => words(reason as 'policy')).join(separator);
  return words('line', {
    count: excluded.groups.length,
    groups: excluded.groups.join(separator),
    choices,
  });
}
