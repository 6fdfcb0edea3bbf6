/**
 * What the console asks Prometheus, once: each usage figure as one PromQL instant-vector
 * expression over the whole cluster (never one query per card: HAMi-WebUI PR #96), and the
 * labels that name a card and an instance. The defaults are NVIDIA dcgm-exporter's names and the
 * embedded exporter's per-instance series; `--usage-queries FILE` (YAML or JSON) overrides any of
 * them for clusters whose exporters use other names.
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { GPU_METRIC_LABELS, GPU_METRICS } from '../gpu-usage.js';

const Expression = z
  .string()
  .trim()
  .min(1, 'must be a PromQL expression')
  .refine((text) => !text.includes('$'), {
    message:
      'must be an instant-vector expression without $ variables: the console adds the window',
  });
/** `null` or omitted per instance: this cluster has no per-instance series (card series only). */
const OptionalExpression = Expression.nullable();
const LabelName = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'must be a Prometheus label name');

const PROM_DURATION_UNITS = { ms: 0.001, s: 1, m: 60, h: 3600 } as const;

/**
 * A query file's duration (`500ms`, `15s`, `1m`, `1h`: a positive whole number of one unit) in
 * seconds; throws for anything else. The one parser of it: the file's schema refuses what it
 * refuses (at start), and the source reads the same text with it, never guessing a default.
 */
export function promDurationSeconds(text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  const seconds =
    match?.[1] && match[2]
      ? Number(match[1]) * PROM_DURATION_UNITS[match[2] as keyof typeof PROM_DURATION_UNITS]
      : 0;
  if (!(seconds > 0))
    throw new Error(`${JSON.stringify(text)} must be a duration such as 15s or 1m`);
  return seconds;
}

const PromDuration = z.string().refine(
  (text) => {
    try {
      return promDurationSeconds(text) > 0;
    } catch {
      return false;
    }
  },
  { message: 'must be a duration such as 15s or 1m' },
);

export const UsageQueriesFileSchema = z
  .object({
    /** Card utilisation in percent (0–100). */
    cardUtilization: Expression,
    /** For each card `cardUtilization` has no series of (dcgm without profiling fields). */
    cardUtilizationFallback: OptionalExpression,
    /** Card frame buffer used and free, MiB. */
    cardMemoryUsed: Expression,
    cardMemoryFree: Expression,
    /** Percent (0–100) of its own allocated compute each instance uses; null: none. */
    instanceUtilization: OptionalExpression,
    /** MiB each instance uses; null: none. */
    instanceMemoryUsed: OptionalExpression,
    /** The labels naming a card's node, index, UUID and model, and an instance's container. */
    labels: z
      .object({
        node: LabelName,
        card: LabelName,
        uuid: LabelName,
        model: LabelName,
        namespace: LabelName,
        pod: LabelName,
        container: LabelName,
      })
      .strict()
      .partial(),
    /**
     * Resolution of the subqueries that an expression other than a plain series needs; four of
     * it (at least 120 s) is how far back before each horizon a series' age is looked for.
     */
    step: PromDuration,
  })
  .strict()
  .partial();

export type UsageQueriesFile = z.infer<typeof UsageQueriesFileSchema>;

export interface UsageQueries {
  cardUtilization: string;
  cardUtilizationFallback: string | null;
  cardMemoryUsed: string;
  cardMemoryFree: string;
  instanceUtilization: string | null;
  instanceMemoryUsed: string | null;
  labels: Record<keyof typeof GPU_METRIC_LABELS, string>;
  step: string;
}

/** dcgm-exporter's names and labels, and the embedded exporter's per-instance series. */
export const DEFAULT_USAGE_QUERIES: UsageQueries = {
  // The graphics engine's activity (0–1) says more than GPU_UTIL's "a kernel ran" (dcgm's advice).
  cardUtilization: `${GPU_METRICS.cardEngineActive} * 100`,
  cardUtilizationFallback: GPU_METRICS.cardUtilization,
  cardMemoryUsed: GPU_METRICS.cardMemoryUsed,
  cardMemoryFree: GPU_METRICS.cardMemoryFree,
  instanceUtilization: GPU_METRICS.instanceUtilization,
  instanceMemoryUsed: GPU_METRICS.instanceMemoryUsed,
  labels: { ...GPU_METRIC_LABELS },
  step: '15s',
};

/** The defaults with a file's keys over them. */
export function withUsageQueries(file: UsageQueriesFile): UsageQueries {
  const { labels, ...queries } = file;
  return {
    ...DEFAULT_USAGE_QUERIES,
    ...Object.fromEntries(Object.entries(queries).filter(([, value]) => value !== undefined)),
    labels: {
      ...DEFAULT_USAGE_QUERIES.labels,
      ...Object.fromEntries(
        Object.entries(labels ?? {}).filter(([, value]) => value !== undefined),
      ),
    },
  };
}

/**
 * A `--usage-queries` file's text (YAML, of which JSON is a part) → the queries; throws an
 * `Error` whose message names the file and each wrong key, e.g.
 * `usage.yaml: cardMemoryUsed: must be a PromQL expression`.
 */
export function parseUsageQueries(text: string, fileName: string): UsageQueries {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new Error(
      `${fileName}: not YAML or JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = UsageQueriesFileSchema.safeParse(document ?? {});
  if (!parsed.success)
    throw new Error(
      `${fileName}: ${parsed.error.issues
        .map((issue) => {
          const unknown = issue.code === 'unrecognized_keys' ? issue.keys : [];
          if (unknown.length > 0)
            return `${[...issue.path, unknown.join(', ')].join('.')}: unknown key (known: ${knownKeys(issue.path)})`;
          return `${issue.path.join('.') || '(file)'}: ${issue.message}`;
        })
        .join('; ')}`,
    );
  return withUsageQueries(parsed.data);
}

function knownKeys(path: readonly PropertyKey[]): string {
  const shape =
    path[0] === 'labels'
      ? UsageQueriesFileSchema.shape.labels.unwrap().shape
      : UsageQueriesFileSchema.shape;
  return Object.keys(shape).join(', ');
}
