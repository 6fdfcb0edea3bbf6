/**
 * `/metrics` on a large cluster (issue 18): a generated 1,000-node × 8-card cluster (every
 * model × policy pool), pre-filled with mGPU pods and a few that no node can take, then the
 * console's `--metrics-port` scraped `--scrapes` times in a row. It prints the scrape time
 * (median, p95; target < 100 ms), the answer's size and series per metric family. The first
 * scrape after a change of the cluster also rebuilds the node states (shared with the preview);
 * it is timed apart. The same scrapes are then timed under 100 pod changes a second, where
 * every scrape pays that rebuild. Figures only: nothing here fails on time.
 *
 * The cluster (API server, scheduler, node agents) and the churn generator run in a child
 * process (`_metrics-cluster.ts`), as the cluster runs elsewhere in production: the scrape times
 * and the memory figures are the console's own process, not its queueing behind the simulator.
 *
 * `pnpm bench metrics [--nodes 1000] [--prefill 3000] [--scrapes 50] [--rate 100]`
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { embeddedConnection, startBff } from '@mgpu/bff';
import { heading, median, percentile } from '../lib/report.js';
import type { ClusterMessage, DriverMessage } from './_metrics-cluster.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    prefill: { type: 'string', default: '3000' },
    scrapes: { type: 'string', default: '50' },
    rate: { type: 'string', default: '100' },
    minutes: { type: 'string' },
  },
  allowPositionals: true,
});
const NODES = Number(values.nodes);
const PREFILL = Number(values.prefill);
const SCRAPES = Number(values.scrapes);
const RATE = Number(values.rate);
const CARDS = 8;
const NAMESPACE = 'metrics';
/** Pods no node can take (8 cards of 90 % and 50 GiB), so `mgpu_pending_pods` has work to do. */
const IMPOSSIBLE = 5;

for (const [name, value] of Object.entries({ NODES, PREFILL, SCRAPES, RATE }))
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()}: not a number`);

const ms = (value: number) => Number(value.toFixed(1));

/** Memory after a full collection (run under `--expose-gc`, as bench/run.ts does). */
function settledMemory(): NodeJS.MemoryUsage {
  globalThis.gc?.();
  return process.memoryUsage();
}

/** Scrapes in a row; a scrape that fails (the connection dropped) is counted, not timed. */
async function scrapeTimes(url: string, count: number) {
  const times: number[] = [];
  let bytes = 0;
  let text = '';
  let failed = 0;
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    try {
      const response = await fetch(url);
      text = await response.text();
      times.push(performance.now() - started);
      bytes = Buffer.byteLength(text);
    } catch {
      failed++;
    }
  }
  return { times, bytes, text, failed };
}

async function main() {
  heading(
    `/metrics: ${NODES} nodes × ${CARDS} cards, ${PREFILL} pods (+${IMPOSSIBLE} that fit nowhere)`,
    'scrape < 100 ms',
  );
  const cluster = fork(
    fileURLToPath(new URL('./_metrics-cluster.ts', import.meta.url)),
    [
      ...['--nodes', String(NODES), '--cards', String(CARDS), '--prefill', String(PREFILL)],
      ...['--impossible', String(IMPOSSIBLE), '--namespace', NAMESPACE],
    ],
    { execArgv: ['--import', 'tsx', '--conditions=source'], stdio: 'inherit' },
  );
  const tell = (message: DriverMessage) => cluster.send(message);
  const heard = <T extends ClusterMessage>(wanted: (message: ClusterMessage) => boolean) =>
    new Promise<T>((resolve, reject) => {
      cluster.once('exit', (code) => reject(new Error(`the cluster process exited with ${code}`)));
      cluster.on('message', (message: ClusterMessage) => {
        if (wanted(message)) resolve(message as T);
      });
    });
  const ready = await heard<Extract<ClusterMessage, { ready: true }>>(
    (message) => 'ready' in message,
  );
  console.log(
    `   cluster (own process): ${PREFILL + IMPOSSIBLE} pods created and scheduled in ${(ready.createdMs / 1000).toFixed(1)} s`,
  );

  // The BFF's memory is what starting it added to this process (after a full GC both times),
  // its heap the console's caches (informers, node states, records).
  const memoryBefore = settledMemory();
  const bffStarted = performance.now();
  const bff = await startBff({
    connection: embeddedConnection({ url: ready.url, token: ready.token }),
    port: 0,
    metricsPort: 0,
    logger: false,
  });
  try {
    const url = bff.metricsUrl ?? '';
    // The informers have listed; wait until the records cover the prefill.
    while (bff.context.allocations.snapshot().length < PREFILL)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const listedMs = performance.now() - bffStarted;
    const memoryAfter = settledMemory();
    const heapMiB = (memoryAfter.heapUsed - memoryBefore.heapUsed) / 2 ** 20;
    const rssMiB = (memoryAfter.rss - memoryBefore.rss) / 2 ** 20;
    console.log(
      `   BFF started and its informers listed in ${ms(listedMs / 1000)} s; it added ${ms(rssMiB)} MiB RSS, ${ms(heapMiB)} MiB heap (${ms((heapMiB * 1024) / NODES)} KiB a node, ${ms((heapMiB * 1024) / PREFILL)} KiB a pod if all went to one or the other); process RSS ${ms(memoryAfter.rss / 2 ** 20)} MiB (the cluster runs in another)`,
    );

    const started = performance.now();
    await fetch(url).then((response) => response.text());
    const firstMs = performance.now() - started;
    const quiet = await scrapeTimes(url, SCRAPES);
    const families = new Map<string, number>();
    for (const line of quiet.text.split('\n')) {
      const name = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line)?.[1];
      if (name) families.set(name, (families.get(name) ?? 0) + 1);
    }
    const series = [...families.values()].reduce((sum, count) => sum + count, 0);
    console.log(
      `   first scrape (node states rebuilt): ${ms(firstMs)} ms; then ${SCRAPES} scrapes (${quiet.failed} failed): median ${ms(median(quiet.times))} ms, p95 ${ms(percentile(quiet.times, 95))} ms`,
    );
    console.log(
      `   answer: ${(quiet.bytes / 1024).toFixed(0)} KiB, ${series} series (${(quiet.bytes / series).toFixed(0)} B each)`,
    );
    console.table(
      Object.fromEntries(
        [...families]
          .filter(([name]) => name.startsWith('mgpu_'))
          .map(([name, count]) => [name, { series: count }]),
      ),
    );

    tell({ churn: RATE });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const busy: number[] = [];
    let busyFailed = 0;
    for (let index = 0; index < SCRAPES; index++) {
      const { times, failed } = await scrapeTimes(url, 1);
      busy.push(...times);
      busyFailed += failed;
      // Prometheus scrapes every 15–30 s; here every 200 ms, so each scrape sees fresh changes.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stopped = heard<Extract<ClusterMessage, { stopped: true }>>(
      (message) => 'stopped' in message,
    );
    tell({ stop: true });
    const { issued } = await stopped;
    console.log(
      `   under ${RATE} changes/s (${issued} issued): median ${ms(median(busy))} ms, p95 ${ms(percentile(busy, 95))} ms, max ${ms(Math.max(...busy))} ms, ${busyFailed} failed`,
    );
    console.log(
      `   machine load average: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')} on ${cpus().length} cores (cluster and churn in a child process)`,
    );
  } finally {
    await bff.close();
    if (cluster.exitCode === null) {
      cluster.kill('SIGTERM');
      await once(cluster, 'exit');
    }
  }
}

await main();
process.exit(0);
