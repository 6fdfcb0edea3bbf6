/**
 * `/metrics` on a large cluster (issue 18): a generated 1,000-node × 8-card cluster (every
 * model × policy pool), pre-filled with mGPU pods and a few that no node can take, then the
 * console's `--metrics-port` scraped `--scrapes` times in a row. It prints each scrape's wall
 * time (median, p95; target < 100 ms) and the BFF's CPU over it, the answer's size and series
 * per metric family. The first scrape builds every node's lines; it is timed apart. The same
 * scrapes are then timed under 100 pod changes a second, where every scrape follows changes
 * (node states, pools, pending pods and the changed nodes' lines rebuilt), and last the answer
 * alone in this process's CPU clock under the same churn. Figures only: nothing fails on time.
 *
 * The cluster (API server, scheduler, node agents) and the churn generator run in a child
 * process (`_metrics-cluster.ts`), as the cluster runs elsewhere in production, and the scraper
 * in another (`_scraper.ts`), as Prometheus does: the scrape times and the CPU and memory
 * figures are the console's own process.
 *
 * `pnpm bench metrics [--nodes 1000] [--prefill 3000] [--scrapes 50] [--rate 100]`
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appRouter, ConsoleMetrics, embeddedConnection, startBff } from '@mgpu/bff';
import { heading, machineLoad, median, percentile } from '../lib/report.js';
import type { ClusterMessage, DriverMessage } from './_metrics-cluster.js';
import type { ScrapeResult } from './_scraper.js';

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

/** A Prometheus-like scraper in its own process (`_scraper.ts`): one GET per `scrape()`. */
function startScraper(url: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./_scraper.ts', import.meta.url)), url],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  return {
    /**
     * One scrape: its wall time in the scraper, and the CPU this process (the BFF alone: the
     * cluster and the scraper run in others) used meanwhile — the answer, plus whatever the
     * informers did in that window.
     */
    async scrape(command: 'scrape' | 'families' = 'scrape') {
      const cpu = process.cpuUsage();
      const answered = new Promise<string>((resolve) => lines.once('line', resolve));
      child.stdin.write(`${command}\n`);
      const result = JSON.parse(await answered) as ScrapeResult;
      const used = process.cpuUsage(cpu);
      return { ...result, cpuMs: (used.user + used.system) / 1000 };
    },
    stop: () => child.kill(),
  };
}

type Scraper = ReturnType<typeof startScraper>;

/** The BFF's CPU (ms per second of wall time) over `ms` without a scrape: the informers' own work. */
async function idleCpuRate(ms: number): Promise<number> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / ((performance.now() - started) / 1000);
}

/** `count` scrapes, `pauseMs` apart: wall times, the BFF's CPU over each, failures. */
async function scrapes(scraper: Scraper, count: number, pauseMs: number) {
  const wall: number[] = [];
  const cpu: number[] = [];
  let failed = 0;
  for (let index = 0; index < count; index++) {
    const result = await scraper.scrape();
    if (result.ms === undefined) failed++;
    else {
      wall.push(result.ms);
      cpu.push(result.cpuMs);
    }
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return { wall, cpu, failed };
}

const summary = (samples: readonly number[]) =>
  `median ${ms(median(samples))} ms, p95 ${ms(percentile(samples, 95))} ms, max ${ms(Math.max(...samples))} ms`;

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

    const scraper = startScraper(url);
    try {
      const first = await scraper.scrape('families');
      const quiet = await scrapes(scraper, SCRAPES, 0);
      const families = Object.entries(first.families ?? {});
      const series = families.reduce((sum, [, count]) => sum + count, 0);
      console.log(
        `   first scrape (node states and every node's lines built): ${ms(first.ms ?? Number.NaN)} ms, BFF CPU ${ms(first.cpuMs)} ms`,
      );
      console.log(
        `   quiet, ${SCRAPES} scrapes in a row (${quiet.failed} failed): wall ${summary(quiet.wall)}; BFF CPU ${summary(quiet.cpu)}`,
      );
      console.log(
        `   answer: ${((first.bytes ?? 0) / 1024).toFixed(0)} KiB, ${series} series (${((first.bytes ?? 0) / series).toFixed(0)} B each)`,
      );
      console.table(
        Object.fromEntries(
          families
            .filter(([name]) => name.startsWith('mgpu_'))
            .map(([name, count]) => [name, { series: count }]),
        ),
      );

      tell({ churn: RATE });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // What the informers cost the BFF under this churn with no scrape: part of each window below.
      const churnRate = await idleCpuRate(3000);
      // Prometheus scrapes every 15–30 s; here every 200 ms, so each scrape follows fresh changes.
      const busy = await scrapes(scraper, SCRAPES, 200);
      console.log(
        `   under ${RATE} changes/s, ${SCRAPES} scrapes 200 ms apart (${busy.failed} failed): wall ${summary(busy.wall)}; BFF CPU over each ${summary(busy.cpu)} (the informers' churn alone: ${ms(churnRate)} ms a second)`,
      );

      // The answer alone, timed in this process's CPU clock (steadier than wall time on a shared
      // machine): a second ConsoleMetrics on the same context, asked 200 ms apart under the churn,
      // so each answer follows changes and pays the node states', pools' and pending pods' rebuild.
      const probe = new ConsoleMetrics({
        views: bff.context.views,
        allocations: bff.context.allocations,
        router: appRouter,
        sseSubscribers: () => 0,
      });
      await probe.answer();
      const answerCpu: number[] = [];
      for (let index = 0; index < SCRAPES; index++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const cpu = process.cpuUsage();
        await probe.answer();
        const used = process.cpuUsage(cpu);
        answerCpu.push((used.user + used.system) / 1000);
      }
      const stopped = heard<Extract<ClusterMessage, { stopped: true }>>(
        (message) => 'stopped' in message,
      );
      tell({ stop: true });
      const { issued } = await stopped;
      console.log(
        `   the answer alone under the churn, in-process CPU: ${summary(answerCpu)} (${issued} changes issued in all)`,
      );
      console.log(`   ${machineLoad()} (cluster and churn, and the scraper, in child processes)`);
    } finally {
      scraper.stop();
    }
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
