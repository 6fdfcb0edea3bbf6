/**
 * `/metrics` on a large cluster (issue 18): a generated 1,000-node × 8-card cluster (every
 * model × policy pool), pre-filled with mGPU pods and a few that no node can take, then the
 * console's `--metrics-port` scraped `--scrapes` times in a row. It prints the scrape time
 * (median, p95; target < 100 ms), the answer's size and series per metric family. The first
 * scrape after a change of the cluster also rebuilds the node states (shared with the preview);
 * it is timed apart. The same scrapes are then timed under 100 pod changes a second, where
 * every scrape pays that rebuild. Figures only: nothing here fails on time.
 *
 * The cluster (API server, scheduler, node agents) and the BFF run in this process.
 *
 * `pnpm bench metrics [--nodes 1000] [--prefill 3000] [--scrapes 50] [--rate 100]`
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { embeddedConnection, startBff } from '@mgpu/bff';
import { startBenchCluster } from '../lib/cluster.js';
import { CHURN_SHAPES, type MgpuShape, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';

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

const shapeOf = (index: number) => CHURN_SHAPES[index % CHURN_SHAPES.length] as MgpuShape;

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
  const log = (message: string) => {
    if (process.env.BENCH_VERBOSE) process.stderr.write(`${message}\n`);
  };
  const cluster = await startBenchCluster({
    nodes: NODES,
    cardsPerNode: CARDS,
    namespace: NAMESPACE,
    log,
  });
  const { server, core } = cluster;
  const fillPod = (index: number) => mgpuPod(`fill-${index}`, NAMESPACE, 'fill', shapeOf(index));
  let started = performance.now();
  await cluster.createPods(PREFILL, fillPod);
  let next = PREFILL;
  for (let index = 0; index < IMPOSSIBLE; index++)
    await core.createNamespacedPod({
      namespace: NAMESPACE,
      body: mgpuPod(`nofit-${index}`, NAMESPACE, 'nofit', {
        policy: 'native-burst-share',
        core: 720,
        memoryMiB: 8 * 51200,
        cards: 8,
      }),
    });
  await cluster.settle();
  console.log(
    `   cluster: ${PREFILL + IMPOSSIBLE} pods created and scheduled in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  // The BFF shares this process with the cluster: its memory is what starting it added (after a
  // full GC both times), its heap the console's caches (informers, node states, records).
  const memoryBefore = settledMemory();
  const bffStarted = performance.now();
  const bff = await startBff({
    connection: embeddedConnection(server),
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
      `   BFF started and its informers listed in ${ms(listedMs / 1000)} s; it added ${ms(rssMiB)} MiB RSS, ${ms(heapMiB)} MiB heap (${ms((heapMiB * 1024) / NODES)} KiB a node, ${ms((heapMiB * 1024) / PREFILL)} KiB a pod if all went to one or the other); process RSS ${ms(memoryAfter.rss / 2 ** 20)} MiB with the cluster`,
    );

    started = performance.now();
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

    // Under churn: one create and one delete of the oldest pod, alternating, at RATE per second.
    const alive = Array.from({ length: PREFILL }, (_, index) => index);
    let issued = 0;
    let inFlight = 0;
    const churnStartedAt = performance.now();
    const churn = setInterval(() => {
      const due = Math.floor(((performance.now() - churnStartedAt) / 1000) * RATE);
      for (; issued < due && inFlight < 64; issued++) {
        inFlight++;
        const operation =
          issued % 2 === 0
            ? (async () => {
                const index = next++;
                await core.createNamespacedPod({ namespace: NAMESPACE, body: fillPod(index) });
                alive.push(index);
              })()
            : (async () => {
                const oldest = alive.shift();
                if (oldest !== undefined)
                  await core.deleteNamespacedPod({
                    namespace: NAMESPACE,
                    name: `fill-${oldest}`,
                    gracePeriodSeconds: 0,
                  });
              })();
        operation.then(
          () => inFlight--,
          () => inFlight--,
        );
      }
    }, 10);
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
    clearInterval(churn);
    console.log(
      `   under ${RATE} changes/s (${issued} issued): median ${ms(median(busy))} ms, p95 ${ms(percentile(busy, 95))} ms, max ${ms(Math.max(...busy))} ms, ${busyFailed} failed`,
    );
    console.log(
      `   machine load average: ${loadavg()
        .map((load) => load.toFixed(1))
        .join(' ')} on ${cpus().length} cores (cluster and BFF share this process)`,
    );
  } finally {
    await bff.close();
    await cluster.stop();
  }
}

await main();
process.exit(0);
