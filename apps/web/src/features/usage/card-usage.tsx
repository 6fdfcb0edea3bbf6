import type { CardUsageFigures, UsageCards, UsedFigures } from '@mgpu/shared';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '../../app/trpc.js';
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
 * Read again every ~15 s, except once refused for want of `list nodes` (under `--auth`, as
 * `cluster.nodes` is): asking again does not change the answer until the RBAC does.
 */
const cardQuerySettings = {
  refetchInterval: (query: { state: { error: unknown } }) =>
    isClusterWideForbidden(query.state.error) ? false : USAGE_REFRESH_MS,
  retry: (count: number, error: unknown) => !isClusterWideForbidden(error) && count < 3,
};

/** `usage.cards` of one node, indexed by card and by instance. */
export function useNodeCardUsage(node: string): {
  index: CardUsageIndex;
  answer: UsageCards | undefined;
} {
  const trpc = useTRPC();
  const usage = useQuery({
    ...trpc.usage.cards.queryOptions({ node }),
    ...cardQuerySettings,
  });
  const index = useMemo(() => cardUsageIndex(usage.data ? [usage.data] : []), [usage.data]);
  return { index, answer: usage.data };
}

/**
 * `usage.cards` of each node named (a workload's), one query per node, never the whole cluster;
 * with where the figures come from (one console, one source).
 */
export function useNodesCardUsage(nodes: readonly string[]): {
  index: CardUsageIndex;
  answer: UsageCards | undefined;
} {
  const trpc = useTRPC();
  const answers = useQueries({
    queries: nodes.map((node) => ({
      ...trpc.usage.cards.queryOptions({ node }),
      ...cardQuerySettings,
    })),
  });
  const answered = answers.flatMap((answer) => (answer.data ? [answer.data] : []));
  // A workload's few nodes: indexing their cards again per render costs nothing worth keeping.
  return { index: cardUsageIndex(answered), answer: answered[0] };
}

/** "compute 40% · memory 812 MiB" of what is used, "—" where unknown. */
function UsedText({ used }: { used: UsedFigures }) {
  const { t } = useI18n();
  return t('usage.card.used', {
    compute: used.computePercent === null ? '—' : formatComputePercent(used.computePercent),
    memory: used.memoryMiB === null ? '—' : formatUsedMiB(used.memoryMiB),
  });
}

/**
 * A card's own figure, labelled "whole card": on a shared card it is every holder's together,
 * never one instance's (HAMi #2015).
 */
export function CardUsedLine({ card }: { card: CardUsageFigures | undefined }) {
  const { t } = useI18n();
  if (!card) return null;
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
 * labelled "whole card", else "—".
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
  if (whole)
    return (
      <span data-testid="instance-used" data-whole-card="true">
        <span className="usage-whole-card">{t('usage.card.whole')}</span>{' '}
        <UsedText used={whole.used} />
      </span>
    );
  return <span data-testid="instance-used">—</span>;
}
