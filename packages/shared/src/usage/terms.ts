/**
 * The words of usage (spec §9 "Usage", issue 28), defined once: where figures come from, why a
 * figure is unknown, and the idle verdict's defaults. Schemas, the computation, the BFF's flags
 * and the web's wording all take them from here.
 */

/**
 * Where the console reads usage: Prometheus's HTTP API, the embedded cluster's GPU exporter read
 * in-process, or nowhere (every figure null).
 */
export const USAGE_SOURCE_KINDS = ['prometheus', 'embedded', 'unavailable'] as const;
export type UsageSourceKind = (typeof USAGE_SOURCE_KINDS)[number];

/**
 * Why a usage figure is null (an unknown is never reported as 0):
 * - `no-source`: the console has no usage source;
 * - `card-series-only`: a card the workload shares has only the card's series, whose figure is
 *   the card's and never one instance's (HAMi #2015);
 * - `no-samples`: the source has no sample of the workload's instances in the window yet;
 * - `no-cards`: the workload holds no cards now, so there is nothing to compare with;
 * - `source-failed`: the source did not answer (Prometheus unreachable or the query refused).
 */
export const USAGE_UNKNOWN_REASONS = [
  'no-source',
  'card-series-only',
  'no-samples',
  'no-cards',
  'source-failed',
] as const;
export type UsageUnknownReason = (typeof USAGE_UNKNOWN_REASONS)[number];

/** `--idle-threshold` default: under 5 % of its own allocation a workload counts as quiet. */
export const DEFAULT_IDLE_THRESHOLD_PERCENT = 5;
/** `--idle-after` default: quiet for 30 minutes while holding cards is idle. */
export const DEFAULT_IDLE_AFTER_SECONDS = 30 * 60;
/** The window `usage.workloads` averages over when the caller names none. */
export const DEFAULT_USAGE_WINDOW_MINUTES = 10;
/** The longest window a caller may ask for: one day. */
export const MAX_USAGE_WINDOW_MINUTES = 24 * 60;

/**
 * The longest `--idle-after`: the embedded exporter keeps its samples that long (its memory
 * grows with it, ~2 GB a day at 1,000 nodes), and a day quiet is idle by any measure.
 */
export const MAX_IDLE_AFTER_SECONDS = 24 * 3600;

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/**
 * `--idle-after`'s duration (`30s`, `2m`, `30m`, `1h`) in seconds; undefined when it is not a
 * positive whole number of one of those units.
 */
export function parseUsageDuration(text: string): number | undefined {
  const match = /^(\d+)([smh])$/.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const seconds = Number(match[1]) * (DURATION_UNITS[match[2]] ?? 0);
  return seconds > 0 ? seconds : undefined;
}
