/**
 * Debian's real Prometheus scraping the embedded cluster's GPU exporter: it accepts the text
 * (every family, the dcgm labels) and answers PromQL over it with what the pods' annotations
 * asked, so a console pointed at it with `--prometheus-url` reads the simulator's model.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { type EmbeddedCluster, startEmbeddedCluster, topologyPodObject } from '@mgpu/cluster-sim';
import { GPU_METRICS, SIMULATED_UTILIZATION_ANNOTATION } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';

const NAMESPACE = 'team-a';
let cluster: EmbeddedCluster;
let prometheus: PrometheusServer;

/** An instant query through Prometheus's HTTP API: each series' labels and value. */
async function query(promql: string): Promise<{ labels: Record<string, string>; value: number }[]> {
  const response = await fetch(
    `${prometheus.url}/api/v1/query?${new URLSearchParams({ query: promql })}`,
  );
  const answer = (await response.json()) as {
    status: string;
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  expect(answer.status).toBe('success');
  return answer.data.result.map((series) => ({
    labels: series.metric,
    value: Number(series.value[1]),
  }));
}

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => undefined, gpuMetricsPort: 0 });
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  for (const [name, percent] of [
    ['busy-80', '80'],
    ['idle-0', '0'],
  ] as const) {
    const body = topologyPodObject({
      name,
      namespace: NAMESPACE,
      containers: [
        {
          name: 'main',
          image: 'busybox:1.36',
          gpu: { type: 'mgpu', multiCard: false, compute: '0.5', memoryGiB: '4' },
        },
      ],
    });
    body.metadata.annotations[SIMULATED_UTILIZATION_ANNOTATION] = percent;
    await core.createNamespacedPod({ namespace: NAMESPACE, body });
  }
  const deadline = Date.now() + 30_000;
  const started = () =>
    cluster.gpuMetrics
      .samples()
      .instances.filter((item) => item.pod === 'busy-80' || item.pod === 'idle-0').length;
  while (started() < 2) {
    if (Date.now() > deadline) throw new Error('the annotated pods did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const target = new URL(cluster.gpuMetrics.url ?? '').host;
  prometheus = await startPrometheus({ targets: [target] });
  await prometheus.waitForScrapes(2);
}, 120_000);
afterAll(async () => {
  await prometheus?.close();
  await cluster?.stop();
});

describe('a real Prometheus scraping the embedded GPU exporter', () => {
  it('takes every card with dcgm-exporter labels, unused ones at 0', async () => {
    const cards = cluster.gpuMetrics.samples().cards;
    const scraped = await query(GPU_METRICS.cardUtilization);
    expect(scraped).toHaveLength(cards.length);
    for (const series of scraped) {
      expect(series.labels).toMatchObject({
        Hostname: expect.any(String),
        gpu: expect.stringMatching(/^\d+$/),
        UUID: expect.stringMatching(/^GPU-/),
        modelName: expect.any(String),
      });
      expect(series.value).toBeGreaterThanOrEqual(0);
      expect(series.value).toBeLessThanOrEqual(100);
    }
    const idleCards = await query(`${GPU_METRICS.cardUtilization} == 0`);
    expect(idleCards.length).toBeGreaterThan(0);
  });

  it('answers mgpu_instance_utilization_percent as the annotations asked: ~80 and 0', async () => {
    const busy = await query(
      `avg_over_time(${GPU_METRICS.instanceUtilization}{namespace="${NAMESPACE}",pod="busy-80"}[5m])`,
    );
    expect(busy).toHaveLength(1);
    expect(busy[0]?.labels).toMatchObject({
      namespace: NAMESPACE,
      pod: 'busy-80',
      container: 'main',
    });
    expect(Math.abs((busy[0]?.value ?? 0) - 80)).toBeLessThanOrEqual(2);
    const idle = await query(
      `max_over_time(${GPU_METRICS.instanceUtilization}{namespace="${NAMESPACE}",pod="idle-0"}[5m])`,
    );
    expect(idle.map((series) => series.value)).toEqual([0]);
    const memory = await query(
      `${GPU_METRICS.instanceMemoryUsed}{namespace="${NAMESPACE}",pod="busy-80"}`,
    );
    expect(memory[0]?.value).toBeGreaterThan(0);
    expect(memory[0]?.value).toBeLessThanOrEqual(4096);
  });
});
