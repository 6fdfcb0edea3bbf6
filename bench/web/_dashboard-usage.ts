/**
 * The usage side of `web/dashboard.ts` (issue 28: the dashboard's frame p95 within 10 % of
 * today's with usage on): the bench cluster's node agents served as the GPU exporter (simulated
 * dcgm text, as `pnpm sim --gpu-metrics-port`), Debian's Prometheus scraping it every 15 s, and a
 * second built BFF on the same cluster reading usage from that Prometheus — a console with a usage
 * source beside the first, which has none. Both BFFs and the scrapes run through every phase, so
 * the phases differ only in which console the page is on.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import {
  PROMETHEUS_BINARY,
  type PrometheusServer,
  startPrometheus,
} from '../../apps/bff/src/test-support/prometheus.js';
import {
  type GpuExporterServer,
  serveGpuExporter,
} from '../../packages/cluster-sim/src/gpu-usage/exporter-server.js';
import { exporterText } from '../../packages/cluster-sim/src/index.js';
import type { BenchCluster } from '../lib/cluster.js';
import { freePort, startBuiltBff } from '../lib/console.js';

export interface UsageConsole {
  /** `http://127.0.0.1:<port>`: the console with Prometheus as its usage source. */
  url: string;
  stop(): Promise<void>;
}

/** Undefined (with why, printed) where this machine has no Prometheus to run. */
export async function startUsageConsole(
  cluster: BenchCluster,
  kubeconfigFile: string,
): Promise<UsageConsole | undefined> {
  if (!existsSync(PROMETHEUS_BINARY)) {
    console.log(`   no usage phase: ${PROMETHEUS_BINARY} is missing (apt-get install prometheus)`);
    return undefined;
  }
  let exporter: GpuExporterServer | undefined;
  let prometheus: PrometheusServer | undefined;
  let bff: ChildProcess | undefined;
  const stop = async () => {
    bff?.kill('SIGTERM');
    await prometheus?.close();
    await exporter?.close();
  };
  try {
    exporter = await serveGpuExporter(() => exporterText(cluster.agents.gpuUsage()));
    prometheus = await startPrometheus({
      targets: [`127.0.0.1:${exporter.port}`],
      // Prometheus's default: what a real cluster's dcgm-exporter would be scraped at.
      scrapeIntervalSeconds: 15,
    });
    const port = await freePort();
    bff = await startBuiltBff(port, [
      '--kubeconfig',
      kubeconfigFile,
      '--prometheus-url',
      prometheus.url,
    ]);
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Opens a node's card grid (its cards' used figures poll `usage.cards`; the first listed node
 * unless named) by loading `/allocations?node=` on the console at `consoleUrl`, then waits until
 * the page is live with the grid shown. Returns the node's name.
 */
export async function openNodeView(page: Page, node: string | undefined, consoleUrl: string) {
  const loading = { timeout: 600_000 };
  const name =
    node ?? (await page.getByTestId('node-row').first().getAttribute('data-node')) ?? undefined;
  if (name === undefined) throw new Error('no node listed to open');
  await page.goto(`${consoleUrl}/allocations?node=${encodeURIComponent(name)}`);
  await page
    .getByTestId('stream-status')
    .and(page.locator('[data-status="live"]'))
    .waitFor(loading);
  await page.getByTestId('node-view').waitFor(loading);
  await page.getByTestId('node-row').first().waitFor(loading);
  return name;
}
