/// <reference lib="dom" />
/**
 * The allocation dashboard under load (issue 8), on the production build in Debian's Chromium:
 * a generated 1,000-node × 8-card cluster (every model × policy pool), pre-filled with mGPU pods,
 * then 100 allocation changes a second (an mGPU pod created or deleted through the Kubernetes
 * API; each is then scheduled onto cards and reported by its node agent) for `--minutes` (1 by
 * default; the issue's soak is `--minutes 10`). It prints:
 * - frame time: the interval between animation frames while the page applies the churn, p95
 *   (target ≤ 16 ms, i.e. no frame dropped at 60 Hz), and the long tasks (> 50 ms);
 * - change-to-DOM: an event's arrival in the page → the frame that shows it painted, p95
 *   (target ≤ 250 ms); also the BFF feed's change time → painted, which adds the SSE hop;
 * - the page's main thread: how busy it was over the churn, and with what (script, style, layout;
 *   the rest is paint, compositing set-up and the browser's own work) — the headroom that frame
 *   intervals, counted in whole 60 Hz frames, do not show;
 * - the page's memory (JS heap after a forced GC, DOM nodes) at the start, each minute and at
 *   the end of the churn.
 * Figures only: nothing here fails on time. Build first (`pnpm build`).
 *
 * The cluster (API server, scheduler, node agents) runs in this process, the built BFF in its
 * own; the driver's creates and deletes go over kept-alive connections, as the controllers'
 * requests do. Where the CPU goes: `BENCH_BFF_NODE_ARGS='--cpu-prof --cpu-prof-dir=D'` profiles
 * the BFF, and running this file itself under `node --cpu-prof` (see bench/run.ts for the other
 * flags) profiles the cluster and the driver; `--profile`/`--trace` are the page's.
 *
 * `pnpm bench dashboard [--minutes 10] [--rate 100] [--nodes 1000] [--prefill 3000] [--profile F] [--trace F]`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { startBenchCluster } from '../lib/cluster.js';
import { freePort, haveBuiltConsole, launchChromium, startBuiltBff } from '../lib/console.js';
import { CHURN_SHAPES, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.MGPU_BENCH_MINUTES ?? '1' },
    rate: { type: 'string', default: '100' },
    nodes: { type: 'string', default: '1000' },
    prefill: { type: 'string', default: '3000' },
    /** Writes a CPU profile of the page's first 10 s of churn (Chrome DevTools format). */
    profile: { type: 'string' },
    /** Writes a Chromium performance trace of the first 10 s of churn (open in DevTools). */
    trace: { type: 'string' },
  },
  allowPositionals: true,
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const NODES = Number(values.nodes);
const PREFILL = Number(values.prefill);
const CARDS = 8;
const NAMESPACE = 'churn';
const PAINTED_EVENT = 'mgpu:allocations-painted';
/** Requests in flight at most; a change that would exceed it is counted as missed, not queued. */
const MAX_IN_FLIGHT = 64;

for (const [name, value] of Object.entries({ MINUTES, RATE, NODES, PREFILL }))
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()}: not a number`);

function podBody(index: number) {
  const shape = CHURN_SHAPES[index % CHURN_SHAPES.length];
  if (!shape) throw new Error('no pod shapes');
  return mgpuPod(`churn-${index}`, NAMESPACE, 'churn', shape);
}

interface PageProbe {
  frames: number[];
  changeToDom: number[];
  feedToDom: number[];
  events: number;
  records: number;
  longTasks: number[];
}

/** Listeners set before the app starts: frame intervals, painted batches, long tasks. */
function installProbe(eventName: string) {
  const probe: PageProbe = {
    frames: [],
    changeToDom: [],
    feedToDom: [],
    events: 0,
    records: 0,
    longTasks: [],
  };
  (window as unknown as { dashboardProbe: PageProbe }).dashboardProbe = probe;
  let last = 0;
  const frame = (now: number) => {
    if (last > 0) probe.frames.push(now - last);
    last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  window.addEventListener(eventName, (event) => {
    const detail = (
      event as CustomEvent<{
        receivedAt: number[];
        feedAt: string[];
        paintedAt: number;
        records: number;
      }>
    ).detail;
    const paintedEpoch = performance.timeOrigin + detail.paintedAt;
    for (const received of detail.receivedAt) probe.changeToDom.push(detail.paintedAt - received);
    for (const at of detail.feedAt) probe.feedToDom.push(paintedEpoch - Date.parse(at));
    probe.events += detail.receivedAt.length;
    probe.records += detail.records;
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: false });
}

/** Takes the samples out of the page, so a long soak does not grow the page's own memory. */
async function drainProbe(page: Page): Promise<PageProbe> {
  return page.evaluate(() => {
    const probe = (window as unknown as { dashboardProbe: PageProbe }).dashboardProbe;
    const taken = {
      frames: probe.frames.splice(0),
      changeToDom: probe.changeToDom.splice(0),
      feedToDom: probe.feedToDom.splice(0),
      events: probe.events,
      records: probe.records,
      longTasks: probe.longTasks.splice(0),
    };
    probe.events = 0;
    probe.records = 0;
    return taken;
  });
}

async function pageMemory(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? Number.NaN;
  return {
    heapMiB: heap.usedSize / 2 ** 20,
    domNodes: metric('Nodes'),
    listeners: metric('JSEventListeners'),
  };
}

/**
 * The renderer's cumulative main-thread times (s), from one CDP session kept open over the churn:
 * the Performance domain counts only while enabled. The forced GCs of `pageMemory` count too.
 */
async function mainThreadClock(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const read = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name: string) => metrics.find((m) => m.name === name)?.value ?? Number.NaN;
    return {
      task: metric('TaskDuration'),
      script: metric('ScriptDuration'),
      style: metric('RecalcStyleDuration'),
      layout: metric('LayoutDuration'),
    };
  };
  return { read, close: () => cdp.detach() };
}

const mib = (value: number) => Number(value.toFixed(1));
const ms = (value: number) => Number(value.toFixed(1));

async function main() {
  if (!haveBuiltConsole()) {
    process.exitCode = 1;
    return;
  }
  const log = (message: string) => {
    if (process.env.BENCH_VERBOSE) process.stderr.write(`${message}\n`);
  };
  heading(
    `dashboard under churn: ${NODES} nodes × ${CARDS} cards, ${PREFILL} pods, ${RATE} changes/s for ${MINUTES} min`,
    'frame time p95 ≤ 16 ms; change-to-DOM p95 ≤ 250 ms; page memory flat over the soak',
  );

  // The cluster in this process, like bench/cluster-sim; the BFF runs built, in its own.
  const cluster = await startBenchCluster({
    nodes: NODES,
    cardsPerNode: CARDS,
    namespace: NAMESPACE,
    log,
  });
  const { kubeConfig, core } = cluster;

  let started = performance.now();
  const alive: number[] = [];
  await cluster.createPods(PREFILL, podBody, (index) => alive.push(index));
  let next = PREFILL;
  await cluster.settle();
  console.log(
    `   cluster: ${NODES} nodes, ${PREFILL} pods created and scheduled in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'mgpu-bench-dashboard-'));
  const kubeconfigFile = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigFile, kubeConfig.exportConfig(), { mode: 0o600 });
  const port = await freePort();
  const bff = await startBuiltBff(port, ['--kubeconfig', kubeconfigFile]);
  const browser = await launchChromium();
  let stopChurn: () => void = () => undefined;
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // tsx compiles with esbuild's keepNames, which wraps named inner functions in `__name(...)`;
    // the page has no such helper, so give it one before the probe's source runs there.
    await page.addInitScript({ content: 'window.__name = (target) => target;' });
    await page.addInitScript(installProbe, PAINTED_EVENT);
    started = performance.now();
    await page.goto(`http://127.0.0.1:${port}/allocations`);
    await page.getByTestId('stream-status').and(page.locator('[data-status="live"]')).waitFor();
    await page.getByTestId('instance-row').first().waitFor();
    await page.getByTestId('node-row').first().waitFor();
    const loadedMs = performance.now() - started;
    const totals = await page.getByTestId('alloc-totals').textContent();
    console.log(
      `   page live with the whole cluster in ${(loadedMs / 1000).toFixed(1)} s (${totals})`,
    );
    await drainProbe(page);
    const memory = [{ minute: 0, ...(await pageMemory(page)) }];

    // 100 changes a second, alternating one create and one delete of the oldest pod, so the
    // cluster's fill stays level over a soak.
    let changes = 0;
    let missed = 0;
    let failed = 0;
    let inFlight = 0;
    const change = (operation: () => Promise<unknown>) => {
      if (inFlight >= MAX_IN_FLIGHT) {
        missed++;
        return;
      }
      inFlight++;
      operation().then(
        () => {
          changes++;
          inFlight--;
        },
        () => {
          failed++;
          inFlight--;
        },
      );
    };
    // The driver shares its event loop with the cluster: ticks come late under load, so each
    // tick issues every change that is due by now, keeping the rate over the run.
    let issued = 0;
    const churnStartedAt = performance.now();
    const interval = setInterval(() => {
      const due = Math.floor(((performance.now() - churnStartedAt) / 1000) * RATE);
      for (; issued < due; issued++) {
        // The pod is picked only when the change goes out: a skipped delete must not lose its pod.
        if (issued % 2 === 0)
          change(async () => {
            const index = next++;
            await core.createNamespacedPod({ namespace: NAMESPACE, body: podBody(index) });
            alive.push(index);
          });
        else
          change(async () => {
            const oldest = alive.shift();
            if (oldest === undefined) return;
            await core.deleteNamespacedPod({
              name: `churn-${oldest}`,
              namespace: NAMESPACE,
              gracePeriodSeconds: 0,
            });
          });
      }
    }, 10);
    stopChurn = () => clearInterval(interval);

    const all: PageProbe = {
      frames: [],
      changeToDom: [],
      feedToDom: [],
      events: 0,
      records: 0,
      longTasks: [],
    };
    const clock = await mainThreadClock(page);
    const busyAtStart = await clock.read();
    const churnStart = performance.now();
    // Optional: a trace or CPU profile of the first 10 s of churn, to see where frames go.
    const recordUntil = churnStart + 10_000;
    let stopRecording: (() => Promise<void>) | undefined;
    if (values.trace) {
      const file = values.trace;
      await browser.startTracing(page, { path: file });
      stopRecording = async () => {
        await browser.stopTracing();
        console.log(`   Chromium trace of the first 10 s of churn: ${file}`);
      };
    } else if (values.profile) {
      const file = values.profile;
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
      stopRecording = async () => {
        const { profile } = await cdp.send('Profiler.stop');
        writeFileSync(file, JSON.stringify(profile));
        console.log(`   CPU profile of the page's first 10 s of churn: ${file}`);
      };
    }
    const end = churnStart + MINUTES * 60_000;
    let nextMemory = churnStart + 60_000;
    while (performance.now() < end) {
      await page.waitForTimeout(Math.min(5_000, Math.max(0, end - performance.now())));
      if (stopRecording && performance.now() >= recordUntil) {
        await stopRecording();
        stopRecording = undefined;
      }
      const taken = await drainProbe(page);
      all.frames.push(...taken.frames);
      all.changeToDom.push(...taken.changeToDom);
      all.feedToDom.push(...taken.feedToDom);
      all.longTasks.push(...taken.longTasks);
      all.events += taken.events;
      all.records += taken.records;
      if (performance.now() >= nextMemory && performance.now() < end - 1_000) {
        memory.push({
          minute: Math.round((performance.now() - churnStart) / 60_000),
          ...(await pageMemory(page)),
        });
        nextMemory += 60_000;
      }
    }
    stopChurn();
    await stopRecording?.();
    const churnSeconds = (performance.now() - churnStart) / 1000;
    const busyAtEnd = await clock.read();
    await clock.close();
    memory.push({ minute: Number((churnSeconds / 60).toFixed(1)), ...(await pageMemory(page)) });
    const shown = await page.getByTestId('alloc-totals').textContent();

    console.log(
      `   churn: ${changes} changes in ${churnSeconds.toFixed(0)} s (${(changes / churnSeconds).toFixed(1)}/s through the API; ${missed} skipped with ${MAX_IN_FLIGHT} in flight, ${failed} refused); the page applied ${all.events} stream events with ${all.records} records (${(all.events / churnSeconds).toFixed(1)} events/s); at the end: ${shown}`,
    );
    heading('frame time while applying the churn', 'p95 ≤ 16 ms (≤ 16.7 ms = every 60 Hz frame)');
    const slow = all.frames.filter((frame) => frame > 17).length;
    console.log(
      `   median ${ms(median(all.frames))} ms, p95 ${ms(percentile(all.frames, 95))} ms, p99 ${ms(percentile(all.frames, 99))} ms, max ${ms(Math.max(...all.frames))} ms over ${all.frames.length} frames; ${((100 * slow) / Math.max(1, all.frames.length)).toFixed(1)} % longer than 17 ms`,
    );
    console.log(
      `   long tasks (> 50 ms): ${all.longTasks.length}, ${ms(all.longTasks.reduce((a, b) => a + b, 0))} ms in all, longest ${ms(Math.max(0, ...all.longTasks))} ms`,
    );
    const share = (key: keyof typeof busyAtEnd) =>
      `${((100 * (busyAtEnd[key] - busyAtStart[key])) / churnSeconds).toFixed(1)} %`;
    console.log(
      `   page main thread busy ${share('task')} of the churn: script ${share('script')}, style ${share('style')}, layout ${share('layout')} (the rest: paint, compositing set-up, the browser's own tasks)`,
    );
    heading('change → DOM', 'p95 ≤ 250 ms');
    console.log(
      `   event arrives in the page → painted: median ${ms(median(all.changeToDom))} ms, p95 ${ms(percentile(all.changeToDom, 95))} ms, p99 ${ms(percentile(all.changeToDom, 99))} ms over ${all.changeToDom.length} events`,
    );
    console.log(
      `   BFF feed saw the change → painted: median ${ms(median(all.feedToDom))} ms, p95 ${ms(percentile(all.feedToDom, 95))} ms, p99 ${ms(percentile(all.feedToDom, 99))} ms`,
    );
    heading(
      `page memory over ${MINUTES} min of churn (after a forced GC)`,
      'flat: no growth with time',
    );
    console.table(
      Object.fromEntries(
        memory.map((m) => [
          `minute ${m.minute}`,
          { 'JS heap MiB': mib(m.heapMiB), 'DOM nodes': m.domNodes, listeners: m.listeners },
        ]),
      ),
    );
    console.log(
      `   machine load average while measuring: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} cores (cluster, BFF and Chromium share them)`,
    );
  } finally {
    stopChurn();
    await browser.close();
    bff.kill('SIGTERM');
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(process.exitCode ?? 0);
