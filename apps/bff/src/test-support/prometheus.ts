/**
 * A real Prometheus for a test: Debian's `/usr/bin/prometheus` (scripts/test.sh installs it when
 * missing) with a generated config that scrapes the given targets every second, on a free
 * loopback port, with a TSDB in a temp directory. Ready means it answers `/-/ready` and has
 * scraped every target once; `close` stops it and removes the directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PROMETHEUS_BINARY = process.env.MGPU_PROMETHEUS_BINARY ?? '/usr/bin/prometheus';

export interface PrometheusServer {
  /** `http(s)://127.0.0.1:<port>`, what `--prometheus-url` gets. */
  url: string;
  /** Resolves once every target has been scraped at least `scrapes` more times from now. */
  waitForScrapes(scrapes?: number): Promise<void>;
  /** Its output so far, for a failing test's message. */
  output(): string;
  close(): Promise<void>;
}

export interface PrometheusTestOptions {
  /** `host:port` of each exporter, scraped at `/metrics` (or `metricsPath`). */
  targets: readonly string[];
  metricsPath?: string;
  /** Seconds between scrapes, default 1. */
  scrapeIntervalSeconds?: number;
  /** How long to wait for ready and the first scrape, default 60 s. */
  readyBoundMs?: number;
  /** Serve HTTPS with this PEM certificate and key (Prometheus's `--web.config.file`). */
  tls?: { certFile: string; keyFile: string };
}

export async function startPrometheus(options: PrometheusTestOptions): Promise<PrometheusServer> {
  if (!existsSync(PROMETHEUS_BINARY))
    throw new Error(
      `${PROMETHEUS_BINARY} is missing: install Debian's prometheus (scripts/test.sh does: apt-get install prometheus)`,
    );
  const interval = options.scrapeIntervalSeconds ?? 1;
  const directory = await mkdtemp(join(tmpdir(), 'mgpu-prometheus-'));
  const config = join(directory, 'prometheus.yml');
  // JSON is YAML: no YAML writer needed. The timeout may not exceed the interval.
  await writeFile(
    config,
    JSON.stringify({
      global: { scrape_interval: `${interval}s`, scrape_timeout: `${interval}s` },
      scrape_configs: [
        {
          job_name: 'gpu',
          // The exporter's own `namespace`/`pod` labels are the instance's: keep them as sent.
          honor_labels: true,
          metrics_path: options.metricsPath ?? '/metrics',
          static_configs: [{ targets: options.targets }],
        },
      ],
    }),
  );
  const webConfig = join(directory, 'web.yml');
  if (options.tls)
    await writeFile(
      webConfig,
      JSON.stringify({
        tls_server_config: { cert_file: options.tls.certFile, key_file: options.tls.keyFile },
      }),
    );
  const ca = options.tls ? await readFile(options.tls.certFile) : undefined;
  const port = await freePort();
  const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  /** GET a path of it as JSON or text; a self-signed test certificate is its own CA. */
  const get = (path: string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const onResponse = (response: IncomingMessage) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      };
      const request = ca
        ? httpsGet(`${url}${path}`, { ca }, onResponse)
        : httpGet(`${url}${path}`, onResponse);
      request.on('error', reject);
    });
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
      ...(options.tls ? [`--web.config.file=${webConfig}`] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
    await rm(directory, { recursive: true, force: true });
  };

  /** The number of scrapes of each target so far (`prometheus_target_interval_length_seconds` is coarser). */
  const scrapeCounts = async (): Promise<number[]> => {
    const response = await get(
      `/api/v1/query?query=${encodeURIComponent('count_over_time(up[1h])')}`,
    );
    const answer = JSON.parse(response.text) as {
      data?: { result: { value: [number, string] }[] };
    };
    return (answer.data?.result ?? []).map((series) => Number(series.value[1]));
  };
  const until = async (what: string, test: () => Promise<boolean>, boundMs: number) => {
    const deadline = Date.now() + boundMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${output.slice(-2000)}`);
      if (await test().catch(() => false)) return;
      if (Date.now() > deadline)
        throw new Error(`prometheus: ${what} not within ${boundMs} ms: ${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const waitForScrapes = async (scrapes = 1) => {
    const before = await scrapeCounts().catch(() => [] as number[]);
    const floor = before.length === 0 ? 0 : Math.min(...before);
    await until(
      `${scrapes} scrape(s) of every target`,
      async () => {
        const counts = await scrapeCounts();
        return (
          counts.length === options.targets.length &&
          counts.every((count) => count >= floor + scrapes)
        );
      },
      Math.max(30_000, (scrapes + 5) * interval * 1000),
    );
  };
  try {
    const readyBoundMs = options.readyBoundMs ?? 60_000;
    await until('ready', async () => (await get('/-/ready')).status === 200, readyBoundMs);
    await waitForScrapes(1);
  } catch (error) {
    await close();
    throw error;
  }
  return { url, waitForScrapes, output: () => output, close };
}

/**
 * A port nobody listens on now (Prometheus takes no port 0; a test also names a console's
 * metrics port in the scrape config before the console listens on it).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
