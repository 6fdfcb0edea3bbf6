/**
 * The Prometheus usage source against Debian's real Prometheus scraping a fixture exporter that
 * serves dcgm-exporter's names and the per-instance series: what the console reads is what the
 * exporter said, dcgm's GR_ENGINE_ACTIVE falls back to GPU_UTIL, a `--usage-queries` file
 * renames it all, and an unreachable or refusing Prometheus is an error, never a 0.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrometheusError, PrometheusHttp, PrometheusSource } from '@mgpu/api';
import { parseUsageQueries } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrometheusServer, startPrometheus } from '../test-support/prometheus.js';
import {
  dcgmLine,
  type FixtureExporter,
  instanceLine,
  serveMetricsText,
} from './gpu-exporter-fixture.js';

const A100 = 'NVIDIA A100-SXM4-80GB';
const card0 = { node: 'gpu-node-a', index: 0, uuid: 'GPU-aaaa-0000', model: A100 };
const card1 = { node: 'gpu-node-a', index: 1, uuid: 'GPU-aaaa-0001', model: A100 };
const busy = {
  node: 'gpu-node-a',
  card: 0,
  namespace: 'team-a',
  pod: 'train-0',
  container: 'main',
};
const quiet = {
  node: 'gpu-node-a',
  card: 1,
  namespace: 'team-b',
  pod: 'idle-0',
  container: 'main',
};

/** dcgm-exporter with its profiling field, the embedded exporter's instance series, other names. */
const FULL_TEXT = [
  // dcgm-exporter's own words: a measured card, not the simulator's.
  '# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).',
  dcgmLine('DCGM_FI_PROF_GR_ENGINE_ACTIVE', card0, 0.45),
  dcgmLine('DCGM_FI_PROF_GR_ENGINE_ACTIVE', card1, 0.02),
  // Deliberately unlike the engine's figure: the test tells which one was read.
  dcgmLine('DCGM_FI_DEV_GPU_UTIL', card0, 61),
  dcgmLine('DCGM_FI_DEV_GPU_UTIL', card1, 7),
  dcgmLine('DCGM_FI_DEV_FB_USED', card0, 30000),
  dcgmLine('DCGM_FI_DEV_FB_USED', card1, 1000),
  dcgmLine('DCGM_FI_DEV_FB_FREE', card0, 51920),
  dcgmLine('DCGM_FI_DEV_FB_FREE', card1, 80920),
  instanceLine('mgpu_instance_utilization_percent', busy, 80),
  instanceLine('mgpu_instance_utilization_percent', quiet, 0),
  instanceLine('mgpu_instance_memory_used_mib', busy, 12000),
  instanceLine('mgpu_instance_memory_used_mib', quiet, 500),
  // Another vendor's exporter, for the override file.
  'acme_gpu_busy_ratio{node_name="gpu-node-b",card_index="3",serial="ACME-3",product="Acme X1"} 0.25',
  'acme_gpu_mem_used_bytes{node_name="gpu-node-b",card_index="3"} 2147483648',
  'acme_gpu_mem_free_bytes{node_name="gpu-node-b",card_index="3"} 1073741824',
  '',
].join('\n');

/** dcgm-exporter without profiling fields (the default counters of many installs). */
const NO_PROFILING_TEXT = [
  dcgmLine('DCGM_FI_DEV_GPU_UTIL', card0, 61),
  dcgmLine('DCGM_FI_DEV_FB_USED', card0, 30000),
  dcgmLine('DCGM_FI_DEV_FB_FREE', card0, 51920),
  '',
].join('\n');

const QUERY = { windowSeconds: 120, idleThresholdPercent: 5, idleAfterSeconds: 30 };
/**
 * The source knows a series' age at the granularity of the window and idle-after (whether it
 * has a sample from before each): an idle-after of a few seconds is one these series reach.
 */
const SHORT = { ...QUERY, idleAfterSeconds: 3 };
// Scraped every second: a one-second subquery step sees each sample.
const FINE_STEP = parseUsageQueries('step: 1s', 'test.yaml');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});
async function exporter(text: string): Promise<FixtureExporter> {
  const served = await serveMetricsText(text);
  cleanups.push(served.close);
  return served;
}
async function prometheusScraping(
  target: string,
  tls?: { certFile: string; keyFile: string },
): Promise<PrometheusServer> {
  const server = await startPrometheus({ targets: [target], ...(tls ? { tls } : {}) });
  cleanups.push(server.close);
  return server;
}

describe('the Prometheus usage source on a real Prometheus', () => {
  let prometheus: PrometheusServer;
  beforeAll(async () => {
    prometheus = await prometheusScraping((await exporter(FULL_TEXT)).target);
    // A few seconds of samples: enough for a span and a quiet stretch.
    await prometheus.waitForScrapes(4);
  }, 90_000);

  it('reads each card of dcgm-exporter: engine activity as percent, frame buffer, UUID and model', async () => {
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const cards = await source.cardUsage(SHORT);
    const byIndex = new Map(
      cards.filter((card) => card.node === 'gpu-node-a').map((c) => [c.card, c]),
    );
    expect([...byIndex.keys()].sort()).toEqual([0, 1]);
    const first = byIndex.get(0);
    expect(first?.utilization.meanPercent).toBeCloseTo(45, 6);
    expect(first).toMatchObject({
      uuid: card0.uuid,
      model: A100,
      memoryUsedMiB: 30000,
      memoryFreeMiB: 51920,
    });
    expect(byIndex.get(1)?.utilization.meanPercent).toBeCloseTo(2, 6);
    expect(byIndex.get(1)?.memoryUsedMiB).toBe(1000);
    expect(source.simulated).toBe(false);
    // Samples over a few seconds, not one.
    expect(first?.utilization.sampledSeconds).toBeGreaterThan(0);
    expect(first?.utilization.sampledSeconds).toBeLessThanOrEqual(QUERY.windowSeconds);
  });

  it('reads each instance: its own utilisation and memory, keyed like its allocation record', async () => {
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const instances = await source.instanceUsage(SHORT);
    const train = instances.find((instance) => instance.pod === 'train-0');
    const idle = instances.find((instance) => instance.pod === 'idle-0');
    expect(train).toMatchObject({ ...busy, memoryUsedMiB: 12000 });
    expect(train?.utilization.meanPercent).toBe(80);
    // At 80 % it is never quiet; at 0 % it has been quiet for as long as it was sampled.
    expect(train?.utilization.quietSeconds).toBe(0);
    expect(idle).toMatchObject({ ...quiet, memoryUsedMiB: 500 });
    expect(idle?.utilization.meanPercent).toBe(0);
    expect(idle?.utilization.quietSeconds).toBeGreaterThan(0);
    expect(idle?.utilization.quietSeconds).toBeGreaterThanOrEqual(
      (idle?.utilization.sampledSeconds ?? 0) - 1,
    );
  });

  it('a quiet instance becomes idle once it stayed quiet for the whole idle-after', async () => {
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const idleAfterSeconds = 3;
    await prometheus.waitForScrapes(idleAfterSeconds + 1);
    const instances = await source.instanceUsage({ ...QUERY, idleAfterSeconds });
    const idle = instances.find((instance) => instance.pod === 'idle-0');
    expect(idle?.utilization.quietSeconds).toBeGreaterThanOrEqual(idleAfterSeconds);
  });

  it('a quiet instance younger than idle-after is not yet idle: its quiet time is not guessed', async () => {
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const instances = await source.instanceUsage({ ...QUERY, idleAfterSeconds: 3600 });
    const idle = instances.find((instance) => instance.pod === 'idle-0');
    expect(idle?.utilization.meanPercent).toBe(0);
    expect(idle?.utilization.quietSeconds).toBeLessThan(3600);
  });

  it('a --usage-queries file names another exporter’s series and labels', async () => {
    const queries = parseUsageQueries(
      [
        'cardUtilization: acme_gpu_busy_ratio * 100',
        'cardUtilizationFallback: null',
        'cardMemoryUsed: acme_gpu_mem_used_bytes / 1048576',
        'cardMemoryFree: acme_gpu_mem_free_bytes / 1048576',
        'instanceUtilization: null',
        'instanceMemoryUsed: null',
        'step: 1s',
        'labels: { node: node_name, card: card_index, uuid: serial, model: product }',
      ].join('\n'),
      'acme.yaml',
    );
    const source = new PrometheusSource({ url: prometheus.url, queries });
    expect(await source.instanceUsage(QUERY)).toEqual([]);
    const cards = await source.cardUsage(QUERY);
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({
      node: 'gpu-node-b',
      card: 3,
      uuid: 'ACME-3',
      model: 'Acme X1',
      memoryUsedMiB: 2048,
      memoryFreeMiB: 1024,
    });
    expect(cards[0]?.utilization.meanPercent).toBeCloseTo(25, 6);
  });

  it('reads a range (query_range): every point of an instance over the last seconds', async () => {
    const http = new PrometheusHttp({ url: prometheus.url });
    const end = Math.floor(Date.now() / 1000);
    const series = await http.queryRange(
      'mgpu_instance_utilization_percent{pod="train-0"}',
      end - 3,
      end,
      1,
    );
    expect(series).toHaveLength(1);
    expect(series[0]?.labels).toMatchObject({ namespace: 'team-a', container: 'main' });
    expect(series[0]?.points.length).toBeGreaterThanOrEqual(2);
    for (const point of series[0]?.points ?? []) {
      expect(point.value).toBe(80);
      expect(point.time).toBeGreaterThanOrEqual(end - 3);
      expect(point.time).toBeLessThanOrEqual(end);
    }
  });

  it('a step no parser understands is refused when the source is made, not read as 15 s', () => {
    expect(
      () => new PrometheusSource({ url: prometheus.url, queries: { ...FINE_STEP, step: 'soon' } }),
    ).toThrow(/must be a duration/);
  });

  it('a query Prometheus refuses is a failed query, not a figure', async () => {
    const queries = parseUsageQueries('cardMemoryUsed: "sum(("', 'broken.yaml');
    const source = new PrometheusSource({ url: prometheus.url, queries });
    const failure = await source.cardUsage(QUERY).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PrometheusError);
    expect(failure).toMatchObject({ kind: 'query-failed' });
    expect((failure as Error).message).toMatch(/refused the query/);
  });
});

describe('dcgm-exporter without its profiling fields', () => {
  it('falls back from DCGM_FI_PROF_GR_ENGINE_ACTIVE to DCGM_FI_DEV_GPU_UTIL', async () => {
    const prometheus = await prometheusScraping((await exporter(NO_PROFILING_TEXT)).target);
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const [card] = await source.cardUsage(QUERY);
    expect(card).toMatchObject({
      node: 'gpu-node-a',
      card: 0,
      uuid: card0.uuid,
      memoryUsedMiB: 30000,
    });
    expect(card?.utilization.meanPercent).toBe(61);
    // No per-instance series on this exporter: nothing is attributed to an instance.
    expect(await source.instanceUsage(QUERY)).toEqual([]);
    // The pool history's past falls back the same way: GPU_UTIL at every point, by card.
    await prometheus.waitForScrapes(3);
    const end = Date.now();
    const past = await source.cardUtilizationRange({
      startMs: end - 5000,
      endMs: end,
      stepMs: 1000,
    });
    expect(past.length).toBeGreaterThan(0);
    for (const point of past) {
      expect(point.at).toBeLessThanOrEqual(end);
      expect([...point.percentByCard]).toEqual([['gpu-node-a/0', 61]]);
    }
  }, 90_000);
});

/** A cluster of both kinds of node: card 0 with dcgm's profiling field, card 1 without it. */
const MIXED_TEXT = [
  dcgmLine('DCGM_FI_PROF_GR_ENGINE_ACTIVE', card0, 0.45),
  dcgmLine('DCGM_FI_DEV_GPU_UTIL', card0, 61),
  dcgmLine('DCGM_FI_DEV_GPU_UTIL', card1, 7),
  dcgmLine('DCGM_FI_DEV_FB_USED', card0, 30000),
  dcgmLine('DCGM_FI_DEV_FB_USED', card1, 1000),
  dcgmLine('DCGM_FI_DEV_FB_FREE', card0, 51920),
  dcgmLine('DCGM_FI_DEV_FB_FREE', card1, 80920),
  '',
].join('\n');

describe('a cluster where only some cards have GR_ENGINE_ACTIVE', () => {
  it('reads each card from its own best series: the engine where it has one, GPU_UTIL elsewhere', async () => {
    const prometheus = await prometheusScraping((await exporter(MIXED_TEXT)).target);
    await prometheus.waitForScrapes(3);
    const source = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    const percentOf = (
      cards: readonly { card: number; utilization: { meanPercent: number | null } }[],
    ) => new Map(cards.map((card) => [card.card, card.utilization.meanPercent]));
    const now = percentOf(await source.cardUsage(QUERY));
    expect(now.get(0)).toBeCloseTo(45, 6);
    expect(now.get(1)).toBe(7);
    // The pool history's mean-only read and its past, alike.
    expect([...(await source.cardMeanUtilization(60))].sort()).toEqual([
      ['gpu-node-a/0', 45],
      ['gpu-node-a/1', 7],
    ]);
    const end = Date.now();
    const past = await source.cardUtilizationRange({
      startMs: end - 3000,
      endMs: end,
      stepMs: 1000,
    });
    expect(past.length).toBeGreaterThan(0);
    for (const point of past) {
      expect(point.percentByCard.get('gpu-node-a/0')).toBeCloseTo(45, 6);
      expect(point.percentByCard.get('gpu-node-a/1')).toBe(7);
    }
  }, 90_000);
});

describe('reaching Prometheus', () => {
  it('a Prometheus nobody answers at is unreachable, said as such', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const problems: (string | null)[] = [];
    const source = new PrometheusSource({
      url: `http://127.0.0.1:${port}`,
      onProblem: (problem) => problems.push(problem),
    });
    const failure = await source.instanceUsage(QUERY).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PrometheusError);
    expect(failure).toMatchObject({ kind: 'unreachable' });
    expect((failure as Error).message).toContain(`127.0.0.1:${port}`);
    // Told once, not at every read (a page polling it would fill the log).
    await source.cardUsage(QUERY).catch(() => undefined);
    await source.instanceUsage(QUERY).catch(() => undefined);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} is unreachable`));
  });

  it('over HTTPS with a private CA and a bearer token through an authenticating proxy', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'mgpu-prometheus-tls-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const certFile = join(directory, 'cert.pem');
    const keyFile = join(directory, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    const prometheus = await prometheusScraping((await exporter(NO_PROFILING_TEXT)).target, {
      certFile,
      keyFile,
    });
    const ca = readFileSync(certFile);
    // Trusted by its CA file: figures. Without it: unreachable (the certificate is refused).
    const trusted = new PrometheusSource({ url: prometheus.url, ca, queries: FINE_STEP });
    expect((await trusted.cardUsage(QUERY))[0]?.utilization.meanPercent).toBe(61);
    const untrusting = new PrometheusSource({ url: prometheus.url, queries: FINE_STEP });
    expect(await untrusting.cardUsage(QUERY).catch((error: unknown) => error)).toMatchObject({
      kind: 'unreachable',
    });

    // kube-rbac-proxy's part, in small: only a request with the bearer token reaches Prometheus.
    let token = 'prometheus-reader-token';
    const seen: (string | undefined)[] = [];
    const proxy = createServer((incoming, outgoing) => {
      seen.push(incoming.headers.authorization);
      if (incoming.headers.authorization !== `Bearer ${token}`) {
        outgoing.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
        return;
      }
      const target = new URL(incoming.url ?? '/', prometheus.url);
      const forwarded = httpsRequest(
        target,
        { method: incoming.method, headers: { ...incoming.headers, host: target.host }, ca },
        (answer: IncomingMessage) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => proxy.close(() => resolve())));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const tokenFile = join(directory, 'token');
    await writeFile(tokenFile, `${token}\n`);
    const problems: (string | null)[] = [];
    const withToken = new PrometheusSource({
      url: proxyUrl,
      bearerTokenFile: tokenFile,
      queries: FINE_STEP,
      onProblem: (problem) => problems.push(problem),
    });
    expect((await withToken.cardUsage(QUERY))[0]?.utilization.meanPercent).toBe(61);
    expect(seen).toContain('Bearer prometheus-reader-token');
    // A rotated token (a projected service-account token, say) is used without a restart.
    // The proxy moves first: until the file follows, reads fail and the console is told why.
    token = 'rotated-reader-token';
    expect(await withToken.cardUsage(QUERY).catch((error: unknown) => error)).toMatchObject({
      kind: 'unreachable',
    });
    expect(problems).toEqual([expect.stringMatching(/answered HTTP 401/)]);
    await writeFile(tokenFile, token);
    expect((await withToken.cardUsage(QUERY))[0]?.utilization.meanPercent).toBe(61);
    expect(problems.at(-1)).toBeNull();
    const withoutToken = new PrometheusSource({ url: proxyUrl, queries: FINE_STEP });
    expect(await withoutToken.cardUsage(QUERY).catch((error: unknown) => error)).toMatchObject({
      kind: 'unreachable',
    });
    expect(seen).toContain('Bearer rotated-reader-token');
  }, 90_000);
});
