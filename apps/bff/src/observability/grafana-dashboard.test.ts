import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { appRouter } from '@mgpu/api';
import { describe, expect, it } from 'vitest';
import { ConsoleMetrics, type MetricsSources } from './metrics.js';

const GRAFANA_DIR = fileURLToPath(new URL('../../../../deploy/grafana/', import.meta.url));

interface Dashboard {
  panels?: unknown[];
  templating?: { list?: { type?: string; query?: string | { query?: string } }[] };
}

/** Every PromQL expression of a dashboard: panel targets (rows' too) and query variables. */
function expressionsOf(dashboard: Dashboard): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'expr') found.push(value);
    } else if (Array.isArray(value)) for (const item of value) visit(item);
    else if (typeof value === 'object' && value !== null)
      for (const [name, child] of Object.entries(value)) visit(child, name);
  };
  visit(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    if (query) found.push(query);
  }
  return found;
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  // Aggregation operators, which may stand before their `by (…)` rather than their argument.
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
]);
const FUNCTIONS_OF_VARIABLES = /\b(label_values|query_result|metrics|label_names)\s*\(/;

/**
 * The metric names a PromQL expression reads: identifiers that are not functions, keywords,
 * label names (in braces or grouping lists), Grafana variables, durations or numbers.
 */
function metricNamesIn(expression: string): string[] {
  let text = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '$1')
    .replace(/\$\w+/g, '');
  // A template variable's `label_values(metric, label)`: the metric, not the label.
  if (FUNCTIONS_OF_VARIABLES.test(text)) text = text.replace(/,\s*\w+\s*\)/g, ')');
  const names: string[] = [];
  for (const match of text.matchAll(/\b([a-zA-Z_:][\w:]*)\b(\s*\()?/g)) {
    const [, name = '', call] = match;
    if (call || KEYWORDS.has(name) || /^\d/.test(name)) continue;
    names.push(name);
  }
  return names;
}

/** A histogram is exported as `<name>_bucket`, `_sum` and `_count` series. */
const baseName = (name: string, exported: Set<string>) =>
  exported.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');

describe('deploy/grafana dashboards', () => {
  // The registry alone names the metrics; nothing is scraped, so no cluster is needed.
  const exported = new Set(
    new ConsoleMetrics({
      views: {} as MetricsSources['views'],
      allocations: {} as MetricsSources['allocations'],
      router: appRouter,
      sseSubscribers: () => 0,
    }).names(),
  );
  const files = readdirSync(GRAFANA_DIR).filter((file) => file.endsWith('.json'));

  it('exist', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s references only metrics the console exports', (file) => {
    const dashboard = JSON.parse(readFileSync(`${GRAFANA_DIR}${file}`, 'utf8')) as Dashboard;
    const expressions = expressionsOf(dashboard);
    expect(expressions.length).toBeGreaterThan(0);
    const referenced = new Set(
      expressions.flatMap(metricNamesIn).map((name) => baseName(name, exported)),
    );
    expect(referenced.size).toBeGreaterThan(0);
    expect([...referenced].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('reads names the way PromQL does', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, route) (rate(mgpu_console_http_request_duration_seconds_bucket[$__rate_interval])))',
      ),
    ).toEqual(['mgpu_console_http_request_duration_seconds_bucket']);
    expect(
      metricNamesIn('100 * a_metric{pool=~"$pool"} / on (pool) b_metric{pool=~"$pool"}'),
    ).toEqual(['a_metric', 'b_metric']);
    expect(metricNamesIn('label_values(mgpu_card_instances, node)')).toEqual([
      'mgpu_card_instances',
    ]);
  });
});
