import type { CardUsageFigures, UsageCards, UsedFigures } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { sentenceWithFigures } from '../../components/figure-text.js';
import { useI18n } from '../../i18n/i18n.js';
import { isClusterWideForbidden } from '../allocations/cluster-wide-access.js';
import { USAGE_REFRESH_MS } from './usage-figures.js';
import {
  type CardUsageIndex,
  cardUsageIndex,
  formatComputePercent,
  formatUsedMiB,
} from './usage-model.js';

/**
 * Read again every ~15 s, except once refused for want of `list nodes` (an older console, which
 * refused `usage.cards` to such an operator): asking again does not change the answer until the
 * RBAC does.
 */
const cardQuerySettings = {
  refetchInterval: (query: { state: { error: unknown } }) =>
    isClusterWideForbidden(query.state.error) ? false : USAGE_REFRESH_MS,
  retry: (count: number, error: unknown) => !isClusterWideForbidden(error) && count < 3,
};

/**
 * `usage.cards` of the nodes named (one node's grid, a workload's nodes), in ONE query however
 * many nodes (the BFF joins once), never the whole cluster; indexed by card and by instance,
 * with where the figures come from (one console, one source).
 */
export function useNodesCardUsage(nodes: readonly string[]): {
  index: CardUsageIndex;
  answer: UsageCards | undefined;
} {
  const trpc = useTRPC();
  // Sorted and distinct, so the same nodes are the same query whatever order a page lists them.
  const named = useMemo(() => [...new Set(nodes)].sort(), [nodes]);
  const usage = useQuery({
    ...trpc.usage.cards.queryOptions({ nodes: named }),
    ...cardQuerySettings,
    enabled: named.length > 0,
  });
  const index = useMemo(() => cardUsageIndex(usage.data ? [usage.data] : []), [usage.data]);
  return { index, answer: usage.data };
}

/** `usage.cards` of one node (its card grid). */
export function useNodeCardUsage(node: string): {
  index: CardUsageIndex;
  answer: UsageCards | undefined;
} {
  const nodes = useMemo(() => [node], [node]);
  return useNodesCardUsage(nodes);
}

/** "compute 40% · memory 812 MiB" of what is used, "—" where unknown; each figure kept whole. */
function UsedText({ used }: { used: UsedFigures }) {
  const { t } = useI18n();
  return sentenceWithFigures((figure) =>
    t('usage.card.used', {
      compute:
        used.computePercent === null ? '—' : figure(formatComputePercent(used.computePercent)),
      memory: used.memoryMiB === null ? '—' : figure(formatUsedMiB(used.memoryMiB)),
    }),
  );
}

/**
 * A card's own figure, labelled "whole card": on a shared card it is every holder's together,
 * never one instance's (HAMi #2015).
 */
export function CardUsedLine({ card }: { card: CardUsageFigures | undefined }) {
  const { t } = useI18n();
  if (!card) return null;
  if (card.withheld) return null;
  return (
    <p className="alloc-small" data-testid="card-used">
      <span className="usage-whole-card">{t('usage.card.whole')}</span>{' '}
      <UsedText used={card.used} />
    </p>
  );
}

/** One instance's own use, where the source has per-instance series; nothing otherwise. */
export function InstanceUsedText({ used }: { used: UsedFigures | undefined }) {
  if (!used || (used.computePercent === null && used.memoryMiB === null)) return null;
  return (
    <span className="muted" data-testid="instance-used">
      <UsedText used={used} />
    </span>
  );
}

/**
 * The result page's "used" cell of one instance: its own figure where known, else its card's
 * labelled "whole card", else "—" — with why where the card's figure is withheld (no `list
 * nodes`: it is every holder's, other teams' too).
 */
export function InstanceUsedCell({
  index,
  id,
  node,
  card,
}: {
  index: CardUsageIndex;
  id: string;
  node: string;
  card: number;
}) {
  const { t } = useI18n();
  const own = index.instances.get(id);
  if (own && (own.computePercent !== null || own.memoryMiB !== null))
    return (
      <span data-testid="instance-used" data-whole-card="false">
        <UsedText used={own} />
      </span>
    );
  const whole = index.cards.get(`${node}/${card}`);
  if (whole?.withheld)
    return (
      <span
        data-testid="instance-used"
        data-whole-card="false"
        data-reason={whole.withheld}
        title={t(`usage.card.withheld.${whole.withheld}`)}
      >
        {'— '}
        <span className="muted">{t(`usage.card.withheld.${whole.withheld}`)}</span>
      </span>
    );
  if (whole)
    return (
      <span data-testid="instance-used" data-whole-card="true">
        <span className="usage-whole-card">{t('usage.card.whole')}</span>{' '}
        <UsedText used={whole.used} />
      </span>
    );
  return <span data-testid="instance-used">—</span>;
}
