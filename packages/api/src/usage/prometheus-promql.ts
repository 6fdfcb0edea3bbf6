/**
 * The PromQL the Prometheus usage source asks (`prometheus-source.ts`): range functions over a
 * configured expression, of its raw samples wherever it allows, each aggregated to the key's
 * labels, and the reading of an instant answer by key.
 */
import type { InstantSample } from './prometheus-http.js';

/**
 * Prometheus's default lookback delta: a series without a sample for this long is gone (an
 * instant query no longer sees it). Scrape intervals reach 1 min (Prometheus's default), so a
 * shorter range may hold no sample of a live series.
 */
export const SERIES_LOOKBACK_SECONDS = 300;
/**
 * At most this many subquery steps per series, for a configured expression that is not a plain
 * series: at 1,000 nodes × 8 cards a subquery's cost is steps × series.
 */
const MAX_STEPS = 60;
/** A plain series selector, optionally times or divided by a positive number. */
const SCALED_SELECTOR =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*\s*(?:\{[^{}]*\})?)(?:\s*([*/])\s*((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))?$/i;

export type RangeFunction = 'avg' | 'max' | 'last';

export class PromQl {
  /** `stepSeconds`: the configured subquery step (the query file's `step`). */
  constructor(private readonly configuredStepSeconds: number) {}

  /**
   * `agg by (keys) (fn_over_time(expression[seconds]))`; when the range is shorter than
   * Prometheus's lookback, a key without a sample in it (a scrape interval longer than a short
   * `--idle-after` or the pool history's minute) takes its last sample within the lookback:
   * between samples a series holds its last value — what Prometheus itself reads at an instant —
   * so that is its mean and its highest over the range, where a gap would leave the figure
   * unknown at every other read (the idle verdict flickering to null). One query: `or` between
   * aggregated vectors keeps the range's figure wherever there is one.
   */
  aggregated(
    aggregation: 'avg' | 'max',
    keys: readonly string[],
    fn: Exclude<RangeFunction, 'last'>,
    expression: string,
    seconds: number,
  ): string {
    const by = keys.join(', ');
    const overRange = `${aggregation} by (${by}) (${this.overRange(fn, expression, seconds)})`;
    if (seconds >= SERIES_LOOKBACK_SECONDS) return overRange;
    return `${overRange} or ${aggregation} by (${by}) (${this.overRange('last', expression, SERIES_LOOKBACK_SECONDS)})`;
  }

  /**
   * `fn_over_time` of the expression over the last `seconds`: of its raw samples for a plain or
   * scaled series (a positive factor commutes with avg, max and last), else a subquery at the
   * configured step, coarser when it would need more than `MAX_STEPS`.
   */
  overRange(fn: RangeFunction, expression: string, seconds: number): string {
    const read = readableAsSamples(expression);
    if (!read) return `${fn}_over_time((${expression})[${seconds}s:${this.stepSeconds(seconds)}s])`;
    return `${fn}_over_time(${read.selector}[${seconds}s])${read.scale}`;
  }

  /**
   * 1 for each series with a sample in the `reach` seconds before `seconds` ago (so at least
   * that old): raw samples of a short range, however long the horizon.
   */
  presentBefore(expression: string, seconds: number, reach: number): string {
    const read = readableAsSamples(expression);
    const range = read
      ? `${read.selector}[${reach}s]`
      : `(${expression})[${reach}s:${this.stepSeconds(reach)}s]`;
    return `present_over_time(${range} offset ${seconds}s)`;
  }

  /**
   * How far before a horizon a series' sample is looked for, to tell it is that old: four steps,
   * and at least two of Prometheus's default 1-minute scrape interval, so one late scrape does
   * not make an old series look young.
   */
  get ageReachSeconds(): number {
    return Math.max(120, Math.ceil(4 * this.configuredStepSeconds));
  }

  /** The configured step (whole seconds), coarser when the range would need more than `MAX_STEPS`. */
  stepSeconds(rangeSeconds: number): number {
    return Math.max(1, Math.ceil(this.configuredStepSeconds), Math.ceil(rangeSeconds / MAX_STEPS));
  }
}

/**
 * A plain series (`name`, `name{…}`), alone or times / divided by a positive constant
 * (`DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100`, `bytes / 1048576`): read from its raw samples, which
 * costs Prometheus far less than a subquery. Anything else: undefined.
 */
export function readableAsSamples(
  expression: string,
): { selector: string; scale: string } | undefined {
  const match = SCALED_SELECTOR.exec(expression.trim());
  if (!match?.[1]) return undefined;
  return { selector: match[1], scale: match[2] && match[3] ? ` ${match[2]} ${match[3]}` : '' };
}

export function keyOf(sample: InstantSample, keys: readonly string[]): string {
  return JSON.stringify(keys.map((label) => sample.labels[label] ?? ''));
}

export function byKey(
  samples: readonly InstantSample[],
  keys: readonly string[],
): Map<string, number> {
  return new Map(samples.map((sample) => [keyOf(sample, keys), sample.value]));
}

export function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}
