/**
 * Usage read through Prometheus (`--prometheus-url`): each figure is ONE PromQL query over the
 * whole cluster, aggregated by the card's or the instance's labels, so the number of queries
 * does not grow with the cluster (HAMi-WebUI PR #96 ran its store out of memory with one query
 * per card). The expressions are `UsageQueries` (dcgm-exporter's by default, overridable with
 * `--usage-queries`). A Prometheus that cannot be reached or refuses a query makes the read
 * throw a `PrometheusError` (`unreachable` | `query-failed`): the caller reports the figures as
 * unknown, never as 0.
 */
import {
  cardKey,
  DEFAULT_USAGE_QUERIES,
  promDurationSeconds,
  quietSecondsOf,
  SIMULATED_SERIES_HELP,
  type UsageQueries,
} from '@mgpu/shared';
import { PrometheusHttp, type PrometheusHttpOptions, type RangeSeries } from './prometheus-http.js';
import { byKey, finiteOrNull, keyOf, PromQl, readableAsSamples } from './prometheus-promql.js';
import type {
  CardUsage,
  CardUtilizationAt,
  InstanceUsage,
  UsageQuery,
  UsageRange,
  UsageSource,
  UtilizationFigures,
} from './usage-source.js';

export interface PrometheusSourceOptions extends PrometheusHttpOptions {
  /** The expressions and labels (default `DEFAULT_USAGE_QUERIES`). */
  queries?: UsageQueries;
  /**
   * Told why reads fail (a message naming the server), at most once a minute while the reason
   * stays the same, and `null` once a read succeeds again: the console logs it, as the page only
   * says the figures are unknown.
   */
  onProblem?: (message: string | null) => void;
}

/** How often an unchanged problem is told again. */
const PROBLEM_REPEAT_MS = 60_000;

export class PrometheusSource implements UsageSource {
  readonly kind = 'prometheus' as const;
  /** The server, its credentials and CA: the pool history reads the console's series there too. */
  readonly http: PrometheusHttp;
  private readonly queries: UsageQueries;
  private readonly promql: PromQl;
  private readonly onProblem: ((message: string | null) => void) | undefined;
  private lastProblem: { message: string; at: number } | undefined;
  private simulatedSeries = false;
  private helpReadAt = Number.NEGATIVE_INFINITY;

  constructor(options: PrometheusSourceOptions) {
    this.http = new PrometheusHttp(options);
    this.onProblem = options.onProblem;
    this.queries = options.queries ?? DEFAULT_USAGE_QUERIES;
    // The query file's schema refused a bad step at start; a bad one given in code throws here.
    this.promql = new PromQl(promDurationSeconds(this.queries.step));
  }

  /**
   * True when the card series are the embedded cluster's model (their `# HELP`, kept by
   * Prometheus as metadata, says so): the page then labels them simulated, as it does in-process.
   */
  get simulated(): boolean {
    return this.simulatedSeries;
  }

  /** The server asked, without credentials (for the start's log line). */
  get url(): string {
    return this.http.url;
  }

  instanceUsage(query: UsageQuery): Promise<InstanceUsage[]> {
    return this.told(() => this.readInstanceUsage(query));
  }

  cardMeanUtilization(windowSeconds: number): Promise<Map<string, number>> {
    return this.told(() => this.readCardMeans(windowSeconds));
  }

  cardUsage(query: UsageQuery): Promise<CardUsage[]> {
    return this.told(async () => {
      const [cards] = await Promise.all([this.readCardUsage(query), this.readHelp()]);
      return cards;
    });
  }

  /**
   * Every card's utilisation at each step of the range: ONE range query for the whole cluster,
   * with the fallback series (dcgm-exporter without GR_ENGINE_ACTIVE) asked beside it for the
   * cards the first has no series of; each point the mean over the step (at least the
   * configured step, so a sparse scrape leaves no gaps). Once, at start.
   */
  cardUtilizationRange(range: UsageRange): Promise<CardUtilizationAt[]> {
    return this.told(async () => {
      const { cardUtilization, cardUtilizationFallback, labels } = this.queries;
      const stepSeconds = Math.max(1, Math.round(range.stepMs / 1000));
      const windowSeconds = Math.max(stepSeconds, this.promql.stepSeconds(0));
      // A step shorter than the scrape interval holds the last sample, as the instant reads do.
      const read = (expression: string) =>
        this.http.queryRange(
          this.promql.aggregated(
            'avg',
            [labels.node, labels.card],
            'avg',
            expression,
            windowSeconds,
          ),
          Math.floor(range.startMs / 1000),
          Math.floor(range.endMs / 1000),
          stepSeconds,
        );
      const [primary, fallback] = await Promise.all([
        read(cardUtilization),
        cardUtilizationFallback === null ? [] : read(cardUtilizationFallback),
      ]);
      const cardOf = (found: Record<string, string>): string | undefined => {
        const node = found[labels.node];
        const card = found[labels.card] ? Number(found[labels.card]) : Number.NaN;
        return node && Number.isInteger(card) ? cardKey(node, card) : undefined;
      };
      // Per card: its own primary series where it has one, else its fallback's.
      const seriesByCard = new Map<string, RangeSeries>();
      for (const series of [...fallback, ...primary]) {
        const key = cardOf(series.labels);
        if (key) seriesByCard.set(key, series);
      }
      const byTime = new Map<number, Map<string, number>>();
      for (const [key, { points }] of seriesByCard) {
        for (const point of points) {
          if (!Number.isFinite(point.value)) continue;
          const cards = byTime.get(point.time) ?? new Map<string, number>();
          byTime.set(point.time, cards.set(key, point.value));
        }
      }
      return [...byTime]
        .sort(([a], [b]) => a - b)
        .map(([time, percentByCard]) => ({ at: time * 1000, percentByCard }));
    });
  }

  /** Re-reads, at most once a minute, whether the card series say they are simulated. */
  private async readHelp(): Promise<void> {
    if (Date.now() - this.helpReadAt < PROBLEM_REPEAT_MS) return;
    this.helpReadAt = Date.now();
    const names = [this.queries.cardUtilization, this.queries.cardUtilizationFallback]
      .flatMap((expression) => (expression ? [readableAsSamples(expression)] : []))
      .flatMap((read) => (read ? [read.selector.replace(/\s*\{.*$/, '')] : []));
    // A proxy that lets only queries through leaves the label as it was; the figures still come.
    const helps = await Promise.all(names.map((name) => this.http.metricHelp(name))).catch(
      () => undefined,
    );
    if (helps)
      this.simulatedSeries = helps.flat().some((help) => help.includes(SIMULATED_SERIES_HELP));
  }

  /** A read whose failure (and the recovery after one) `onProblem` hears of. */
  private async told<T>(read: () => Promise<T>): Promise<T> {
    try {
      const value = await read();
      if (this.lastProblem) {
        this.lastProblem = undefined;
        this.onProblem?.(null);
      }
      return value;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const now = Date.now();
      const last = this.lastProblem;
      if (!last || last.message !== message || now - last.at >= PROBLEM_REPEAT_MS) {
        this.lastProblem = { message, at: now };
        this.onProblem?.(message);
      }
      throw error;
    }
  }

  private async readInstanceUsage(query: UsageQuery): Promise<InstanceUsage[]> {
    const { instanceUtilization, instanceMemoryUsed, labels } = this.queries;
    if (instanceUtilization === null) return [];
    const keys = [labels.node, labels.card, labels.namespace, labels.pod, labels.container];
    const [utilization, memory] = await Promise.all([
      this.utilization(instanceUtilization, keys, query),
      instanceMemoryUsed === null
        ? Promise.resolve(new Map<string, number>())
        : this.meanByKey(instanceMemoryUsed, keys, query.windowSeconds),
    ]);
    const instances: InstanceUsage[] = [];
    for (const [key, figures] of utilization) {
      const [node, card, namespace, pod, container] = JSON.parse(key) as string[];
      const index = card ? Number(card) : Number.NaN;
      if (!node || !namespace || !pod || !container || !Number.isInteger(index)) continue;
      instances.push({
        node,
        card: index,
        namespace,
        pod,
        container,
        utilization: figures.utilization,
        memoryUsedMiB: finiteOrNull(memory.get(key)),
      });
    }
    return instances;
  }

  private async readCardUsage(query: UsageQuery): Promise<CardUsage[]> {
    const { cardUtilization, cardUtilizationFallback, cardMemoryUsed, cardMemoryFree, labels } =
      this.queries;
    const keys = [labels.node, labels.card];
    const extra = [labels.uuid, labels.model];
    const [utilization, used, free] = await Promise.all([
      this.utilization(cardUtilization, keys, query, extra),
      this.meanByKey(cardMemoryUsed, keys, query.windowSeconds),
      this.meanByKey(cardMemoryFree, keys, query.windowSeconds),
    ]);
    // dcgm-exporter without its profiling fields has no GR_ENGINE_ACTIVE: GPU_UTIL then, for
    // each card the first has no series of (a cluster may mix both kinds of node). The cards
    // are known by their memory series; asked again only when one lacks the first.
    const lacking = [...used.keys(), ...free.keys()].some((key) => !utilization.has(key));
    if (cardUtilizationFallback !== null && (utilization.size === 0 || lacking)) {
      const fallback = await this.utilization(cardUtilizationFallback, keys, query, extra);
      for (const [key, figures] of fallback)
        if (!utilization.has(key)) utilization.set(key, figures);
    }
    const cards = new Map<string, CardUsage>();
    const cardOf = (key: string): CardUsage | undefined => {
      const known = cards.get(key);
      if (known) return known;
      const [node, card] = JSON.parse(key) as string[];
      const index = card ? Number(card) : Number.NaN;
      if (!node || !Number.isInteger(index)) return undefined;
      const fresh: CardUsage = {
        node,
        card: index,
        uuid: null,
        model: null,
        utilization: { meanPercent: null, sampledSeconds: 0, quietSeconds: null },
        memoryUsedMiB: null,
        memoryFreeMiB: null,
      };
      cards.set(key, fresh);
      return fresh;
    };
    for (const [key, figures] of utilization) {
      const card = cardOf(key);
      if (!card) continue;
      card.utilization = figures.utilization;
      card.uuid = figures.extra[labels.uuid] || null;
      card.model = figures.extra[labels.model] || null;
    }
    for (const [key, value] of used) {
      const card = cardOf(key);
      if (card) card.memoryUsedMiB = finiteOrNull(value);
    }
    for (const [key, value] of free) {
      const card = cardOf(key);
      if (card) card.memoryFreeMiB = finiteOrNull(value);
    }
    return [...cards.values()];
  }

  /**
   * Every card's own mean utilisation over the last `windowSeconds`, by `cardKey`: ONE query
   * (the pool history's, every 10 s), the fallback series filling the cards the first has none
   * of, each side held over a scrape interval longer than the window.
   */
  private async readCardMeans(windowSeconds: number): Promise<Map<string, number>> {
    const { cardUtilization, cardUtilizationFallback, labels } = this.queries;
    const keys = [labels.node, labels.card];
    const mean = (expression: string) =>
      this.promql.aggregated('avg', keys, 'avg', expression, windowSeconds);
    const samples = await this.http.query(
      cardUtilizationFallback === null
        ? mean(cardUtilization)
        : `${mean(cardUtilization)} or ${mean(cardUtilizationFallback)}`,
    );
    const means = new Map<string, number>();
    for (const { labels: found, value } of samples) {
      const node = found[labels.node];
      const card = found[labels.card] ? Number(found[labels.card]) : Number.NaN;
      if (node && Number.isInteger(card) && Number.isFinite(value))
        means.set(cardKey(node, card), value);
    }
    return means;
  }

  close(): void {}

  /**
   * Checks, once at start, that Prometheus answers and holds card series: throws a
   * `PrometheusError` when it cannot be asked, an `Error` naming the series when it has none.
   */
  async probe(): Promise<void> {
    await this.readHelp();
    const { cardUtilization, cardUtilizationFallback } = this.queries;
    const count = `count(${cardUtilization})${cardUtilizationFallback === null ? '' : ` or count(${cardUtilizationFallback})`}`;
    if ((await this.http.query(count)).length === 0)
      throw new Error(
        `Prometheus at ${this.url} has no series of ${cardUtilization}${cardUtilizationFallback === null ? '' : ` nor of ${cardUtilizationFallback}`} (yet): usage figures stay unknown until it has`,
      );
  }

  /** The mean of an expression over the last `seconds`, by key. */
  private meanByKey(
    expression: string,
    keys: readonly string[],
    seconds: number,
  ): Promise<Map<string, number>> {
    return this.http
      .query(this.promql.aggregated('avg', keys, 'avg', expression, seconds))
      .then((samples) => byKey(samples, keys));
  }

  /**
   * Three or four queries for a utilisation expression, each over the whole cluster, each a
   * range function over raw samples (no subquery for a plain or scaled series: a subquery's cost
   * is steps × series, which at 8,000 cards took 250–1,400 ms on a loaded machine), each
   * aggregated to the key's labels before anything else (a binary operation between 8,000-series
   * vectors with all their labels cost more than the range functions):
   * - the mean over the window (`avg_over_time`);
   * - the highest value over the look back L = max(window, idle-after), and over idle-after
   *   when it is shorter (`max_over_time`), compared with the threshold by `quietSecondsOf`
   *   (`@mgpu/shared`); a range shorter than a scrape interval takes the value the series holds
   *   since its last sample (`PromQl.aggregated`), so a short idle-after is never a gap;
   * - how old it is, at the granularity of L, the window and idle-after: whether it has a sample
   *   shortly before each of them (`present_over_time … offset`, joined with `or`).
   * Quiet is then a lower bound at that granularity: its age when it stayed under the threshold
   * all through L; idle-after when it reached it only before that; else 0 (quiet for less than
   * idle-after, never idle). The idle verdict is exact; the GPU-hours held idle count the quiet
   * time the look back shows, never more than there was. The sampled span is likewise the
   * largest of the three horizons the series reaches back to (0 when younger than all of them).
   */
  private async utilization(
    expression: string,
    keys: readonly string[],
    query: UsageQuery,
    extraLabels: readonly string[] = [],
  ): Promise<Map<string, { utilization: UtilizationFigures; extra: Record<string, string> }>> {
    const idleAfter = query.idleAfterSeconds;
    const lookbackSeconds = Math.max(query.windowSeconds, idleAfter);
    // Of several series for one key, the busiest speaks.
    const highest = (seconds: number) =>
      this.http
        .query(this.promql.aggregated('max', keys, 'max', expression, seconds))
        .then((samples) => byKey(samples, keys));
    // Longest first: `or` keeps the first horizon a series reaches back to.
    const horizons = [...new Set([lookbackSeconds, query.windowSeconds, idleAfter])].sort(
      (a, b) => b - a,
    );
    const reach = this.promql.ageReachSeconds;
    const by = keys.join(', ');
    const age = horizons
      .map(
        (seconds) =>
          `max by (${by}) (${this.promql.presentBefore(expression, seconds, reach)}) * ${seconds}`,
      )
      .join(' or ');
    const [means, overLookback, overIdleAfter, ages] = await Promise.all([
      this.http.query(
        this.promql.aggregated(
          'avg',
          [...keys, ...extraLabels],
          'avg',
          expression,
          query.windowSeconds,
        ),
      ),
      highest(lookbackSeconds),
      lookbackSeconds === idleAfter ? undefined : highest(idleAfter),
      this.http.query(age),
    ]);
    const ageOf = byKey(ages, keys);
    const figures = new Map<
      string,
      { utilization: UtilizationFigures; extra: Record<string, string> }
    >();
    for (const sample of means) {
      const key = keyOf(sample, keys);
      const mean = finiteOrNull(sample.value);
      const maxLookback = finiteOrNull(overLookback.get(key));
      const maxIdleAfter = overIdleAfter ? finiteOrNull(overIdleAfter.get(key)) : maxLookback;
      // Younger than every horizon: sampled, but for less than any of them.
      const sampled = clamp(finiteOrNull(ageOf.get(key)) ?? 0, 0, lookbackSeconds);
      // Quiet over idle-after but not over L: it reached the threshold before, so it is at least
      // idle-after old, and quiet that long.
      const quiet = quietSecondsOf(
        [
          { seconds: Math.min(idleAfter, sampled), highestPercent: maxIdleAfter },
          { seconds: sampled, highestPercent: maxLookback },
        ],
        query.idleThresholdPercent,
      );
      figures.set(key, {
        utilization: {
          meanPercent: mean,
          sampledSeconds: mean === null ? 0 : Math.min(sampled, query.windowSeconds),
          quietSeconds: mean === null ? null : quiet,
        },
        extra: Object.fromEntries(extraLabels.map((label) => [label, sample.labels[label] ?? ''])),
      });
    }
    return figures;
  }
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
