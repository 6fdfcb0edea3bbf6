/**
 * Usage read through Prometheus (`--prometheus-url`): each figure is ONE PromQL query over the
 * whole cluster, aggregated by the card's or the instance's labels, so the number of queries
 * does not grow with the cluster (HAMi-WebUI PR #96 ran its store out of memory with one query
 * per card). The expressions are `UsageQueries` (dcgm-exporter's by default, overridable with
 * `--usage-queries`). A Prometheus that cannot be reached or refuses a query makes the read
 * throw a `PrometheusError` (`unreachable` | `query-failed`): the caller reports the figures as
 * unknown, never as 0.
 */
import { DEFAULT_USAGE_QUERIES, SIMULATED_SERIES_HELP, type UsageQueries } from '@mgpu/shared';
import {
  type InstantSample,
  PrometheusHttp,
  type PrometheusHttpOptions,
} from './prometheus-http.js';
import type {
  CardUsage,
  InstanceUsage,
  UsageQuery,
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

/** A plain series selector, optionally times or divided by a positive number. */
const SCALED_SELECTOR =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*\s*(?:\{[^{}]*\})?)(?:\s*([*/])\s*((?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))?$/i;
/**
 * At most this many subquery steps per series, however long the look back: at 1,000 nodes × 8
 * cards a subquery's cost is steps × series, and the idle verdict needs minutes, not seconds.
 */
const MAX_STEPS = 60;

export class PrometheusSource implements UsageSource {
  readonly kind = 'prometheus' as const;
  readonly hasInstanceSeries: boolean;
  private readonly http: PrometheusHttp;
  private readonly queries: UsageQueries;
  private readonly onProblem: ((message: string | null) => void) | undefined;
  private lastProblem: { message: string; at: number } | undefined;
  private simulatedSeries = false;
  private helpReadAt = Number.NEGATIVE_INFINITY;

  constructor(options: PrometheusSourceOptions) {
    this.http = new PrometheusHttp(options);
    this.onProblem = options.onProblem;
    this.queries = options.queries ?? DEFAULT_USAGE_QUERIES;
    this.hasInstanceSeries = this.queries.instanceUtilization !== null;
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

  cardUsage(query: UsageQuery): Promise<CardUsage[]> {
    return this.told(async () => {
      const [cards] = await Promise.all([this.readCardUsage(query), this.readHelp()]);
      return cards;
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
        : this.http
            .query(
              `avg by (${keys.join(', ')}) (${this.overWindow('avg', instanceMemoryUsed, query)})`,
            )
            .then((samples) => byKey(samples, keys)),
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
    const memoryOf = (expression: string) =>
      this.http
        .query(`avg by (${keys.join(', ')}) (${this.overWindow('avg', expression, query)})`)
        .then((samples) => byKey(samples, keys));
    const [primary, used, free] = await Promise.all([
      this.utilization(cardUtilization, keys, query, [labels.uuid, labels.model]),
      memoryOf(cardMemoryUsed),
      memoryOf(cardMemoryFree),
    ]);
    // dcgm-exporter without its profiling fields has no GR_ENGINE_ACTIVE: GPU_UTIL then.
    const utilization =
      primary.size === 0 && cardUtilizationFallback !== null
        ? await this.utilization(cardUtilizationFallback, keys, query, [labels.uuid, labels.model])
        : primary;
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

  /**
   * Three queries for a utilisation expression, each over the whole cluster: the mean over the
   * window (raw samples), the time since the oldest sample, and the time since the last one at
   * or over the idle threshold, both looking back max(window, idle-after). Quiet is the second
   * when the series never reached the threshold, else the third; the window's span is the second,
   * at most the window. The two subqueries step at most `MAX_STEPS` times per series.
   */
  private async utilization(
    expression: string,
    keys: readonly string[],
    query: UsageQuery,
    extraLabels: readonly string[] = [],
  ): Promise<Map<string, { utilization: UtilizationFigures; extra: Record<string, string> }>> {
    const lookbackSeconds = Math.max(query.windowSeconds, query.idleAfterSeconds);
    const range = `[${lookbackSeconds}s:${this.stepSeconds(lookbackSeconds)}s]`;
    const read = readableAsSamples(expression);
    // `timestamp` of a plain series is its newest sample's time; scaling does not move it.
    const newest = `timestamp(${read ? read.selector : `(${expression})`})`;
    const over = `(${expression}) >= ${query.idleThresholdPercent}`;
    const by = keys.join(', ');
    const [means, sinceOldest, sinceOver] = await Promise.all([
      this.http.query(
        `avg by (${[...keys, ...extraLabels].join(', ')}) (${this.overWindow('avg', expression, query)})`,
      ),
      this.http.query(`max by (${by}) (${newest} - min_over_time(${newest}${range}))`),
      // Now first: a series at or over the threshold now has been quiet for 0 s.
      this.http.query(
        `min by (${by}) (${newest} - (timestamp(${over}) or max_over_time(timestamp(${over})${range})))`,
      ),
    ]);
    const oldestOf = byKey(sinceOldest, keys);
    const overOf = byKey(sinceOver, keys);
    const figures = new Map<
      string,
      { utilization: UtilizationFigures; extra: Record<string, string> }
    >();
    for (const sample of means) {
      const key = keyOf(sample, keys);
      const mean = finiteOrNull(sample.value);
      // The subquery's first step may reach a sample from before the lookback: clamp.
      const span = finiteOrNull(oldestOf.get(key));
      const sampled = span === null ? null : clamp(span, 0, lookbackSeconds);
      const sinceLastOver = finiteOrNull(overOf.get(key));
      const quiet =
        sampled === null
          ? null
          : sinceLastOver === null
            ? sampled
            : clamp(sinceLastOver, 0, sampled);
      figures.set(key, {
        utilization: {
          meanPercent: mean,
          sampledSeconds:
            mean === null || sampled === null ? 0 : Math.min(sampled, query.windowSeconds),
          quietSeconds: mean === null ? null : quiet,
        },
        extra: Object.fromEntries(extraLabels.map((label) => [label, sample.labels[label] ?? ''])),
      });
    }
    return figures;
  }

  /** `fn_over_time` of the expression over the window: raw samples where it allows. */
  private overWindow(fn: 'avg' | 'max', expression: string, query: UsageQuery): string {
    const read = readableAsSamples(expression);
    if (!read)
      return `${fn}_over_time((${expression})[${query.windowSeconds}s:${this.stepSeconds(query.windowSeconds)}s])`;
    // A constant factor commutes with avg and max (positive) over the samples.
    return `${fn}_over_time(${read.selector}[${query.windowSeconds}s])${read.scale}`;
  }

  /** The configured step, coarser when the range would need more than `MAX_STEPS`. */
  private stepSeconds(rangeSeconds: number): number {
    return Math.max(durationSeconds(this.queries.step), Math.ceil(rangeSeconds / MAX_STEPS));
  }
}

/**
 * A plain series (`name`, `name{…}`), alone or times / divided by a positive constant
 * (`DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100`, `bytes / 1048576`): read from its raw samples, which
 * costs Prometheus far less than a subquery. Anything else: undefined.
 */
function readableAsSamples(expression: string): { selector: string; scale: string } | undefined {
  const match = SCALED_SELECTOR.exec(expression.trim());
  if (!match?.[1]) return undefined;
  return { selector: match[1], scale: match[2] && match[3] ? ` ${match[2]} ${match[3]}` : '' };
}

/** `15s`, `1m`, `500ms` (validated by the queries' schema) → seconds. */
function durationSeconds(text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) return 15;
  const value = Number(match[1]);
  const unit = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return Math.max(1, value * unit);
}

function keyOf(sample: InstantSample, keys: readonly string[]): string {
  return JSON.stringify(keys.map((label) => sample.labels[label] ?? ''));
}

function byKey(samples: readonly InstantSample[], keys: readonly string[]): Map<string, number> {
  return new Map(samples.map((sample) => [keyOf(sample, keys), sample.value]));
}

function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
