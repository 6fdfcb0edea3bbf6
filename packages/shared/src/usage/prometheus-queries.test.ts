import { describe, expect, it } from 'vitest';
import {
  DEFAULT_USAGE_QUERIES,
  parseUsageQueries,
  promDurationSeconds,
} from './prometheus-queries.js';

describe('the --usage-queries file', () => {
  it('defaults to dcgm-exporter’s names and labels and the per-instance series', () => {
    expect(DEFAULT_USAGE_QUERIES).toMatchObject({
      cardUtilization: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE * 100',
      cardUtilizationFallback: 'DCGM_FI_DEV_GPU_UTIL',
      cardMemoryUsed: 'DCGM_FI_DEV_FB_USED',
      cardMemoryFree: 'DCGM_FI_DEV_FB_FREE',
      instanceUtilization: 'mgpu_instance_utilization_percent',
      instanceMemoryUsed: 'mgpu_instance_memory_used_mib',
      labels: { node: 'Hostname', card: 'gpu', uuid: 'UUID', model: 'modelName' },
    });
  });

  it('overrides only the keys it names, in YAML or JSON', () => {
    const fromYaml = parseUsageQueries(
      'instanceUtilization: hami_container_core_util\nlabels:\n  node: node\n',
      'usage.yaml',
    );
    expect(fromYaml.instanceUtilization).toBe('hami_container_core_util');
    expect(fromYaml.labels).toMatchObject({ node: 'node', card: 'gpu', pod: 'pod' });
    expect(fromYaml.cardMemoryUsed).toBe(DEFAULT_USAGE_QUERIES.cardMemoryUsed);
    const fromJson = parseUsageQueries(
      '{"cardMemoryFree": "fb_free_mib", "step": "30s"}',
      'q.json',
    );
    expect(fromJson).toMatchObject({ cardMemoryFree: 'fb_free_mib', step: '30s' });
    expect(parseUsageQueries('', 'empty.yaml')).toEqual(DEFAULT_USAGE_QUERIES);
  });

  it('null per-instance queries say the cluster has card series only', () => {
    const queries = parseUsageQueries('instanceUtilization: null\ninstanceMemoryUsed: null', 'q');
    expect(queries.instanceUtilization).toBeNull();
    expect(queries.instanceMemoryUsed).toBeNull();
  });

  it('refuses a wrong file with the file and the key in the message', () => {
    expect(() => parseUsageQueries('cardMemoryUsed: ""', 'usage.yaml')).toThrow(
      /usage\.yaml: cardMemoryUsed: must be a PromQL expression/,
    );
    expect(() => parseUsageQueries('cardUtilisation: x', 'usage.yaml')).toThrow(
      /usage\.yaml: cardUtilisation: unknown key \(known: cardUtilization,/,
    );
    expect(() => parseUsageQueries('labels: { hostname: x }', 'usage.yaml')).toThrow(
      /labels\.hostname: unknown key \(known: node, card,/,
    );
    expect(() => parseUsageQueries('labels: { node: "host-name" }', 'usage.yaml')).toThrow(
      /labels\.node: must be a Prometheus label name/,
    );
    expect(() => parseUsageQueries('step: soon', 'usage.yaml')).toThrow(/step: must be a duration/);
    expect(() => parseUsageQueries('step: 0s', 'usage.yaml')).toThrow(/step: must be a duration/);
    expect(() =>
      parseUsageQueries('cardUtilization: avg_over_time(x[$window])', 'usage.yaml'),
    ).toThrow(/cardUtilization: must be an instant-vector expression/);
    expect(() => parseUsageQueries('cardMemoryUsed: [a', 'usage.yaml')).toThrow(
      /usage\.yaml: not YAML or JSON/,
    );
    expect(() => parseUsageQueries('- a\n- b', 'usage.yaml')).toThrow(/usage\.yaml: \(file\)/);
  });
});

describe('a query file’s duration', () => {
  it('is read in seconds by the one parser the file and the source share', () => {
    expect(promDurationSeconds('15s')).toBe(15);
    expect(promDurationSeconds('1m')).toBe(60);
    expect(promDurationSeconds('2h')).toBe(7200);
    expect(promDurationSeconds('500ms')).toBe(0.5);
    expect(promDurationSeconds(parseUsageQueries('step: 30s', 'q.yaml').step)).toBe(30);
  });

  it('refuses what it does not understand, never a default', () => {
    for (const text of ['soon', '15', '0s', '1.5m', '-1s', ''])
      expect(() => promDurationSeconds(text)).toThrow(/must be a duration such as 15s or 1m/);
  });
});
