import type {
  CardUsageFigures,
  UsageCards,
  UsageSourceKind,
  UsageUnknownReason,
  UsedFigures,
  WorkloadUsage,
} from '@mgpu/shared';

/** `/workloads`' row key (kind, namespace, name): the table keys its rows by it, usage finds them by it. */
export const workloadUsageKey = (kind: string, namespace: string, name: string): string =>
  `${kind}/${namespace}/${name}`;

/** `usage.workloads`' answer by the list's row key, so each row finds its figures at once. */
export function usageByWorkload(
  usages: readonly WorkloadUsage[] | undefined,
): Map<string, WorkloadUsage> {
  return new Map(
    (usages ?? []).map((usage) => [
      workloadUsageKey(usage.kind, usage.namespace, usage.workload),
      usage,
    ]),
  );
}

/** "80%": an efficiency (0–1) as a whole percent; null stays null (unknown is never "0%"). */
export const efficiencyPercent = (efficiency: number | null): string | null =>
  efficiency === null ? null : `${Math.round(efficiency * 100)}%`;

/** "1.25": GPU-hours with at most two decimals, so a short idle spell still shows. */
export const formatGpuHours = (hours: number): string => String(Number(hours.toFixed(2)));

// The dashboard's own formatters, so used reads with the rounding of the allocation beside it;
// the old names stay for the result page's card figures.
export {
  formatMiBFigure as formatUsedMiB,
  formatPercent as formatComputePercent,
} from '../allocations/format.js';

/**
 * Why a figure is unknown, as the catalog key's last part. The server's reason when it gives one;
 * else the source's: with no source every figure is unknown for that reason alone.
 */
export function unknownReasonOf(usage: {
  source: UsageSourceKind;
  efficiencyUnknownReason: UsageUnknownReason | null;
  perCardOnly: boolean;
}): UsageUnknownReason {
  if (usage.efficiencyUnknownReason) return usage.efficiencyUnknownReason;
  if (usage.source === 'unavailable') return 'no-source';
  return usage.perCardOnly ? 'card-series-only' : 'no-samples';
}

/**
 * The source the page as a whole reads: what every answer agrees on, else the first's. One
 * console has one source, so the answers only disagree while it restarts with another.
 */
export function sourceOfAll(
  usages: readonly { source: UsageSourceKind; simulated: boolean }[],
): { source: UsageSourceKind; simulated: boolean } | undefined {
  const [first] = usages;
  if (!first) return undefined;
  return { source: first.source, simulated: usages.some((usage) => usage.simulated) };
}

/**
 * antd's sorter for a figure that may be unknown: unknowns after every known figure, whichever
 * way the column is sorted, so "unknown" never reads as the smallest (or the largest) number.
 */
export function nullsLast<T>(
  figure: (row: T) => number | null,
): (a: T, b: T, order?: 'ascend' | 'descend' | null) => number {
  return (a, b, order) => {
    const x = figure(a);
    const y = figure(b);
    if (x === null && y === null) return 0;
    // antd reverses the comparator for descend: flip the unknowns' side so they stay last.
    const last = order === 'descend' ? -1 : 1;
    if (x === null) return last;
    if (y === null) return -last;
    return x - y;
  };
}

/** `usage.cards` answers by card (`<node>/<card>`) and by instance (allocation record id). */
export interface CardUsageIndex {
  cards: Map<string, CardUsageFigures>;
  instances: Map<string, UsedFigures>;
}

export function cardUsageIndex(answers: readonly UsageCards[]): CardUsageIndex {
  const index: CardUsageIndex = { cards: new Map(), instances: new Map() };
  for (const answer of answers)
    for (const card of answer.cards) {
      index.cards.set(`${card.node}/${card.card}`, card);
      for (const instance of card.instances) index.instances.set(instance.id, instance.used);
    }
  return index;
}
