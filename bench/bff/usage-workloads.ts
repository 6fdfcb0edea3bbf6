/**
 * `usage.workloads` at scale (issue 28, target ≤ 200 ms median through Prometheus): a generated
 * 1,000-node × 8-card cluster with 3,000 mGPU pods, its GPU exporter (the node agents' usage
 * model as dcgm-exporter text) served over HTTP, Debian's Prometheus scraping it, and
 * `usage.workloads` asked over HTTP `--rounds` times, one call every `--pace` ms (as a page
 * polls), of four consoles, one after the other: with no usage source (the baseline, every
 * figure null), reading the embedded exporter in-process, and through Prometheus
 * (`--prometheus-url`'s source: one query per figure for the whole cluster) twice — with
 * `--usage-max-age 0`, so each call waits for a read of its own (what one read costs), and with
 * the default 10 s, so calls share reads and one in ten seconds runs behind them (what an operator
 * waits). It prints each one's median and p95 and its ratio to the baseline's median, the queries
 * Prometheus answered per read, and the machine's load. Figures only: nothing fails on time.
 *
 * The cluster and the consoles share this process (Prometheus runs in its own), so the times
 * include their informers' work. Prometheus holds `--scrapes` scrapes at `--interval` seconds
 * before the first call: by default the whole 10-minute window at 15 s, as a range function's
 * cost grows with the samples in it (about 10 minutes of waiting). Idle-after is 5 minutes,
 * shorter than the window, so the idle read asks its fourth query (the longest read).
 *
 * `pnpm bench usage-workloads [--nodes 1000] [--pods 3000] [--rounds 30] [--pace 500] [--interval 15] [--scrapes 41]`
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { embeddedConnection, startBff } from '@mgpu/bff';
import type { WorkloadUsage } from '@mgpu/shared';
import {
  type PrometheusServer,
  startPrometheus,
} from '../../apps/bff/src/test-support/prometheus.js';
import {
  PrometheusHttp,
  PrometheusSource,
  unavailableUsageSource,
} from '../../packages/api/src/index.js';
import { exporterText } from '../../packages/cluster-sim/src/index.js';
import { startBenchCluster } from '../lib/cluster.js';
import { loadShapeOf, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, machineLoad, median, percentile } from '../lib/report.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    pods: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '30' },
    pace: { type: 'string', default: '500' },
    interval: { type: 'string', default: '15' },
    scrapes: { type: 'string', default: '41' },
    minutes: { type: 'string' },
  },
  allowPositionals: true,
});
const NODES = Number(values.nodes);
const PODS = Number(values.pods);
const ROUNDS = Number(values.rounds);
const PACE_MS = Number(values.pace);
const INTERVAL = Number(values.interval);
const SCRAPES = Number(values.scrapes);
const NAMESPACE = 'usage';
const IDLE_AFTER_SECONDS = 300;
/** What `usage.workloads` asks a source with its defaults (10 min window, 5 %). */
const USAGE_QUERY = {
  windowSeconds: 600,
  idleThresholdPercent: 5,
  idleAfterSeconds: IDLE_AFTER_SECONDS,
};
const QUERY_ROUNDS = 5;

for (const [name, value] of Object.entries({ NODES, PODS, ROUNDS, PACE_MS, INTERVAL, SCRAPES }))
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()}: not a number`);

const ms = (value: number) => Number(value.toFixed(1));

heading(
  `usage.workloads at ${NODES} nodes × 8 cards, ${PODS} pods`,
  '≤ 200 ms median through Prometheus',
);
console.log(`   before: ${machineLoad()}`);
const cluster = await startBenchCluster({
  nodes: NODES,
  cardsPerNode: 8,
  namespace: NAMESPACE,
  log: () => {},
});
const cleanups: (() => Promise<unknown>)[] = [() => cluster.stop()];
try {
  const filled = performance.now();
  await cluster.createPods(PODS, (index) =>
    mgpuPod(`use-${index}`, NAMESPACE, `use-${index % 500}`, loadShapeOf(index)),
  );
  await cluster.settle();
  console.log(`   ${PODS} pods created and placed in ${ms((performance.now() - filled) / 1000)} s`);

  // The exporter as `pnpm sim --gpu-metrics-port` serves it.
  const exporter = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    response.end(exporterText(cluster.agents.gpuUsage()));
  });
  await new Promise<void>((resolve) => exporter.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => exporter.close(resolve)));
  const target = `127.0.0.1:${(exporter.address() as AddressInfo).port}`;
  const text = exporterText(cluster.agents.gpuUsage());
  const series = (name: string) => text.split('\n').filter((line) => line.startsWith(name)).length;
  console.log(
    `   exporter: ${series('DCGM_FI_DEV_GPU_UTIL{')} cards, ${series('mgpu_instance_utilization_percent{')} instance series, ${ms(text.length / 2 ** 20)} MiB a scrape`,
  );

  const prometheus: PrometheusServer = await startPrometheus({
    targets: [target],
    scrapeIntervalSeconds: INTERVAL,
    readyBoundMs: 180_000,
  });
  cleanups.push(() => prometheus.close());
  await prometheus.waitForScrapes(SCRAPES);
  console.log(`   Prometheus ${prometheus.url} scraped it ${SCRAPES} times every ${INTERVAL} s`);

  const prometheusSource = new PrometheusSource({ url: prometheus.url });
  await prometheusSource.probe();
  const consoles = [
    { name: 'no usage source (baseline)', source: unavailableUsageSource },
    { name: 'embedded exporter, in-process', source: undefined },
    // A source each: a console closes its source when it stops.
    {
      name: 'Prometheus, a read per call (max age 0)',
      source: new PrometheusSource({ url: prometheus.url }),
      maxAge: 0,
    },
    {
      name: 'Prometheus, shared reads (max age 10 s)',
      source: new PrometheusSource({ url: prometheus.url }),
    },
  ] as const;
  const rows: Record<string, Record<string, number | string>> = {};
  let baseline: number | undefined;
  for (const entry of consoles) {
    const { name, source } = entry;
    const maxAgeSeconds = 'maxAge' in entry ? entry.maxAge : undefined;
    const bff = await startBff({
      connection: embeddedConnection(
        { url: cluster.server.url, token: cluster.server.token },
        async () => {},
        () => cluster.agents.gpuUsage(),
      ),
      port: 0,
      logger: false,
      usage: {
        ...(source ? { source } : {}),
        ...(maxAgeSeconds !== undefined ? { maxAgeSeconds } : {}),
        idleAfterSeconds: IDLE_AFTER_SECONDS,
      },
    });
    try {
      while (bff.context.allocations.snapshot().length < PODS)
        await new Promise((resolve) => setTimeout(resolve, 200));
      const url = `${bff.url}/trpc/usage.workloads?input=${encodeURIComponent('{}')}`;
      const call = async () => {
        const response = await fetch(url);
        const body = (await response.json()) as { result?: { data: WorkloadUsage[] } };
        if (!response.ok || !body.result) throw new Error(`usage.workloads: ${response.status}`);
        return body.result.data;
      };
      // The first call warms caches (and the exporter source's first sample); timed apart.
      const firstStarted = performance.now();
      const first = await call();
      const firstMs = performance.now() - firstStarted;
      const times: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        await call();
        const took = performance.now() - started;
        times.push(took);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, PACE_MS - took)));
      }
      baseline ??= median(times);
      rows[name] = {
        'median ms': ms(median(times)),
        'p95 ms': ms(percentile(times, 95)),
        'x baseline (median)': Number((median(times) / baseline).toFixed(2)),
        'first ms': ms(firstMs),
        workloads: first.length,
        'known efficiency': first.filter((row) => row.efficiency !== null).length,
        idle: first.filter((row) => row.idle === true).length,
      };
    } finally {
      await bff.close();
    }
  }
  console.table(rows);

  // Where the time goes: each query one read asks, alone, in Prometheus and back as JSON.
  const asked: string[] = [];
  const query = PrometheusHttp.prototype.query;
  PrometheusHttp.prototype.query = function (this: PrometheusHttp, promql, time) {
    asked.push(promql);
    return query.call(this, promql, time);
  };
  await prometheusSource.instanceUsage(USAGE_QUERY);
  await prometheusSource.cardUsage(USAGE_QUERY);
  PrometheusHttp.prototype.query = query;
  const http = new PrometheusHttp({ url: prometheus.url });
  const perQuery: Record<string, Record<string, number | string>> = {};
  for (const promql of asked) {
    const times: number[] = [];
    let series = 0;
    for (let round = 0; round < QUERY_ROUNDS; round++) {
      const started = performance.now();
      series = (await http.query(promql)).length;
      times.push(performance.now() - started);
    }
    perQuery[promql.length > 110 ? `${promql.slice(0, 107)}...` : promql] = {
      'median ms': ms(median(times)),
      'p95 ms': ms(percentile(times, 95)),
      series,
    };
  }
  console.log(
    `   a read through Prometheus asks ${asked.length} queries at once, each for the whole cluster (and the series' metadata at most once a minute); each alone, ${QUERY_ROUNDS} times:`,
  );
  console.table(perQuery);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  console.log(`   after: ${machineLoad()}`);
}
process.exit(0);
