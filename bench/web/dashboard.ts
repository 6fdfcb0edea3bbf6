/// <reference lib="dom" />
/**
 * The allocation dashboard under load (issue 8), on the production build in Debian's Chromium:
 * a generated 1,000-node × 8-card cluster (every model × policy pool), pre-filled with mGPU pods,
 * then 100 allocation changes a second (an mGPU pod created or deleted through the Kubernetes
 * API; each is then scheduled onto cards and reported by its node agent) for `--minutes` (1 by
 * default; the issue's soak is `--minutes 10`). It prints:
 * - the first load: navigation → the first and the last part of the snapshot in → painted
 *   (`--record-in load` with `--trace`/`--profile` records it);
 * - frame time: the interval between animation frames while the page applies the churn, p95
 *   (target ≤ 16 ms, i.e. no frame dropped at 60 Hz), and the long tasks (> 50 ms);
 * - change-to-DOM: an event's arrival in the page → the frame that shows it painted, p95
 *   (target ≤ 250 ms); also the BFF feed's change time → painted, which adds the SSE hop;
 * - the page's main thread: how busy it was over the churn, and with what (script, style, layout;
 *   the rest is paint, compositing set-up and the browser's own work) — the headroom that frame
 *   intervals, counted in whole 60 Hz frames, do not show;
 * - the page's memory (JS heap after a forced GC, DOM nodes) at the start, each minute and at
 *   the end of the churn;
 * - the same figures in a second phase with a Prometheus-like scraper of `/metrics` (every 15 s
 *   unless `--scraper S`; `--scraper 0` skips it), and with `--subscribers N` a phase with N
 *   `allocations.watch` subscribers, each beside the churn alone with the ratio, in one run.
 * Figures only: nothing here fails on time. Build first (`pnpm build`).
 *
 * The cluster (API server, scheduler, node agents) runs in this process, the built BFF in its
 * own; the driver's creates and deletes go over kept-alive connections, as the controllers'
 * requests do. Where the CPU goes: `BENCH_BFF_NODE_ARGS='--cpu-prof --cpu-prof-dir=D'` profiles
 * the BFF, and running this file itself under `node --cpu-prof` (see bench/run.ts for the other
 * flags) profiles the cluster and the driver; `--profile`/`--trace` are the page's.
 *
 * `pnpm bench dashboard [--minutes 10] [--rate 100] [--nodes 1000] [--prefill 3000] [--scraper 15] [--subscribers N] [--profile F] [--trace F] [--record-in load]`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { startBenchCluster } from '../lib/cluster.js';
import { freePort, haveBuiltConsole, launchChromium, startBuiltBff } from '../lib/console.js';
import { CHURN_SHAPES, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';
import { allocationMessageKind, startSseClients } from '../lib/sse-clients.js';

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
    /**
     * The phase whose first 10 s `--trace`/`--profile` record (`churn` by default; or `scraper`,
     * `subscribers`), or `load`: the dashboard's first load, from navigation to live.
     */
    'record-in': { type: 'string', default: 'churn' },
    /**
     * A phase with a Prometheus-like scraper reading `/metrics` every this many seconds beside
     * the churn (issue 18: no effect on the frame p95); 15 s as Prometheus' default, 0: none.
     */
    scraper: { type: 'string', default: '15' },
    /** Adds a phase with this many `allocations.watch` subscribers beside the page (issue 20). */
    subscribers: { type: 'string' },
  },
  allowPositionals: true,
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const NODES = Number(values.nodes);
const PREFILL = Number(values.prefill);
const SCRAPE_EVERY_S = Number(values.scraper) === 0 ? undefined : Number(values.scraper);
const SUBSCRIBERS = values.subscribers === undefined ? undefined : Number(values.subscribers);
const CARDS = 8;
const NAMESPACE = 'churn';
const PAINTED_EVENT = 'mgpu:allocations-painted';
/** Requests in flight at most; a change that would exceed it is counted as missed, not queued. */
const MAX_IN_FLIGHT = 64;

for (const [name, value] of Object.entries({
  MINUTES,
  RATE,
  NODES,
  PREFILL,
  SCRAPER: SCRAPE_EVERY_S ?? 1,
  SUBSCRIBERS: SUBSCRIBERS ?? 1,
}))
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()}: not a number`);

function podBody(index: number) {
  const shape = CHURN_SHAPES[index % CHURN_SHAPES.length];
  if (!shape) throw new Error('no pod shapes');
  return mgpuPod(`churn-${index}`, NAMESPACE, 'churn', shape);
}

/** What a phase runs beside the churn, and its own figures once the phase is over. */
interface PhaseLoad {
  report(): Promise<string>;
}

interface PhaseResult {
  label: string;
  seconds: number;
  changes: number;
  probe: PageProbe;
  /** Percent of the phase the page's main thread spent in tasks, script, style and layout. */
  busy: { task: number; script: number; style: number; layout: number };
  /** Load average (1 min) at the phase's end. */
  load: number;
  beside: string;
}

/** The first snapshot's way onto the screen, in the page's clock (ms after navigation start). */
interface FirstSnapshot {
  firstPart: number;
  lastPart: number;
  parts: number;
  paintedAt: number;
  records: number;
}

interface PageProbe {
  frames: number[];
  changeToPaint: number[];
  feedToPaint: number[];
  events: number;
  records: number;
  longTasks: number[];
}

/** Listeners set before the app starts: frame intervals, painted batches, long tasks. */
function installProbe(eventName: string) {
  const probe: PageProbe = {
    frames: [],
    changeToPaint: [],
    feedToPaint: [],
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
    const holder = window as unknown as { firstSnapshot?: FirstSnapshot };
    if (holder.firstSnapshot === undefined && detail.records > 0)
      holder.firstSnapshot = {
        firstPart: Math.min(...detail.receivedAt),
        lastPart: Math.max(...detail.receivedAt),
        parts: detail.receivedAt.length,
        paintedAt: detail.paintedAt,
        records: detail.records,
      };
    const paintedEpoch = performance.timeOrigin + detail.paintedAt;
    for (const received of detail.receivedAt) probe.changeToPaint.push(detail.paintedAt - received);
    for (const at of detail.feedAt) probe.feedToPaint.push(paintedEpoch - Date.parse(at));
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
      changeToPaint: probe.changeToPaint.splice(0),
      feedToPaint: probe.feedToPaint.splice(0),
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

/** Starts the `--trace` or `--profile` recording of the page, if either is asked for. */
async function startRecording(
  browser: Browser,
  page: Page,
  what: string,
): Promise<(() => Promise<void>) | undefined> {
  if (values.trace) {
    const file = values.trace;
    await browser.startTracing(page, { path: file });
    return async () => {
      await browser.stopTracing();
      console.log(`   Chromium trace of ${what}: ${file}`);
    };
  }
  if (values.profile) {
    const file = values.profile;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
    return async () => {
      const { profile } = await cdp.send('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      console.log(`   CPU profile of the page's ${what}: ${file}`);
    };
  }
  return undefined;
}

const mib = (value: number) => Number(value.toFixed(1));
const ms = (value: number) => Number(value.toFixed(1));

/** The phase names `--record-in` takes, by the label's first words. */
const RECORD_IN = (() => {
  const wanted = values['record-in'];
  if (wanted === 'scraper') return `churn + /metrics every ${SCRAPE_EVERY_S} s`;
  if (wanted === 'subscribers') return `churn + ${SUBSCRIBERS} allocations.watch subscribers`;
  // `load` is recorded apart, around the first load; no phase is then.
  return wanted === 'load' ? undefined : 'churn';
})();

function printPhase(phase: PhaseResult): void {
  const { probe, busy } = phase;
  heading(
    `${phase.label}: ${phase.changes} changes in ${phase.seconds.toFixed(0)} s, the page applied ${probe.events} stream events with ${probe.records} records`,
    'frame p95 ≤ 16.7 ms + 1 ms; change-to-DOM p95 ≤ 250 ms',
  );
  const slow = probe.frames.filter((frame) => frame > 17).length;
  console.log(
    `   frame time: median ${ms(median(probe.frames))} ms, p95 ${ms(percentile(probe.frames, 95))} ms, p99 ${ms(percentile(probe.frames, 99))} ms, max ${ms(Math.max(...probe.frames))} ms over ${probe.frames.length} frames; ${((100 * slow) / Math.max(1, probe.frames.length)).toFixed(1)} % longer than 17 ms`,
  );
  console.log(
    `   long tasks (> 50 ms): ${probe.longTasks.length}, ${ms(probe.longTasks.reduce((a, b) => a + b, 0))} ms in all, longest ${ms(Math.max(0, ...probe.longTasks))} ms`,
  );
  console.log(
    `   page main thread busy ${busy.task} % of the phase: script ${busy.script} %, style ${busy.style} %, layout ${busy.layout} % (the rest: paint, compositing set-up, the browser's own tasks)`,
  );
  console.log(
    `   change → DOM: event arrives in the page → painted: median ${ms(median(probe.changeToPaint))} ms, p95 ${ms(percentile(probe.changeToPaint, 95))} ms, p99 ${ms(percentile(probe.changeToPaint, 99))} ms over ${probe.changeToPaint.length} events; BFF feed saw the change → painted: median ${ms(median(probe.feedToPaint))} ms, p95 ${ms(percentile(probe.feedToPaint, 95))} ms`,
  );
  if (phase.beside) console.log(`   ${phase.beside}`);
  console.log(`   load average (1 min) at the phase's end: ${phase.load.toFixed(1)}`);
}

/**
 * A Prometheus-like scraper: GET `/metrics` every `everyMs` (from the end of one scrape to the
 * start of the next, as Prometheus never overlaps its own scrapes), the answer read and dropped.
 */
function startScraper(url: string, everyMs: number): PhaseLoad {
  const times: number[] = [];
  let bytes = 0;
  let failed = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const response = await fetch(url);
        bytes = (await response.arrayBuffer()).byteLength;
        times.push(performance.now() - started);
      } catch {
        failed++;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async report() {
      stopped = true;
      await running;
      return `scrapes: ${times.length} (${failed} failed), ${(bytes / 2 ** 20).toFixed(1)} MiB each, median ${ms(median(times))} ms, p95 ${ms(percentile(times, 95))} ms, max ${ms(Math.max(0, ...times))} ms`;
    },
  };
}

/**
 * `count` allocations.watch subscribers in a child process (bench/bff/_sse-clients.ts). They
 * resume from the feed's current id (Last-Event-ID, as a dashboard reconnects) rather than each
 * pulling the whole cluster's snapshot, which at 10,000 nodes is megabytes a subscriber: the
 * figure is the live fan-out under the churn. One snapshot is read here for that id.
 */
async function startSubscribers(bffUrl: string, count: number): Promise<PhaseLoad> {
  const watchUrl = (input: object) =>
    `${bffUrl}/trpc/allocations.watch?input=${encodeURIComponent(JSON.stringify(input))}`;
  const abort = new AbortController();
  const snapshotStarted = performance.now();
  const response = await fetch(watchUrl({}), {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let snapshotBytes = 0;
  let parts = 0;
  let id: string | undefined;
  const reader = response.body?.getReader();
  // Up to the snapshot's end: only its last part's id resumes.
  while (reader && id === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    snapshotBytes += value.byteLength;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = allocationMessageKind(message);
      if (kind === 'snapshot-part' || kind === 'snapshot') parts++;
      if (kind === 'snapshot') id = /^id: (\S+)$/m.exec(message)?.[1];
    }
  }
  const snapshotMs = performance.now() - snapshotStarted;
  abort.abort();
  if (!id) throw new Error('allocations.watch sent no tracked snapshot');
  const clients = startSseClients(watchUrl({ lastEventId: id }), count);
  const connectStarted = performance.now();
  const joined = JSON.parse(await clients.nextLine()) as {
    connected: number;
    failed: number;
    wholeSnapshots: number;
  };
  const connectMs = performance.now() - connectStarted;
  // The replay since that id carries the stamps of changes made before the subscribers joined.
  clients.child.stdin.write('reset\n');
  return {
    async report() {
      clients.child.stdin.write('report\n');
      const latency = JSON.parse(await clients.nextLine()) as {
        delivered: number;
        median: number;
        p95: number;
        p99: number;
        max: number;
        cut: number;
        errors: Record<string, number>;
      };
      clients.child.kill();
      const lost =
        joined.failed + latency.cut > 0
          ? ` (${joined.failed} never in, ${latency.cut} cut during the phase: ${JSON.stringify(latency.errors)})`
          : '';
      return `allocations.watch: one snapshot ${(snapshotBytes / 2 ** 20).toFixed(1)} MiB in ${parts} part(s), ${ms(snapshotMs)} ms; ${joined.connected} of ${count} subscribers resumed in ${ms(connectMs / 1000)} s (${joined.wholeSnapshots} sent a whole snapshot, not the changes since the id)${lost}; BFF stamp → subscriber: median ${latency.median} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms, max ${latency.max} ms over ${latency.delivered} deliveries`;
    },
  };
}

/**
 * Navigation start → first contentful paint (Paint Timing), and → the first animation frame in
 * which every `present` selector matches and no `absent` one does (the page's data on screen),
 * in a fresh browser context: nothing cached, as a new operator's first visit.
 */
async function firstPaint(
  browser: Browser,
  url: string,
  present: readonly string[],
  absent: readonly string[],
) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  try {
    await context.addInitScript({ content: 'window.__name = (target) => target;' });
    const page = await context.newPage();
    await page.goto(url);
    const shown = await page.waitForFunction(
      ({ present, absent }) =>
        present.every((selector) => document.querySelector(selector)) &&
        !absent.some((selector) => document.querySelector(selector))
          ? performance.now()
          : false,
      { present, absent },
      { polling: 'raf', timeout: 600_000 },
    );
    const firstContentfulPaint = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
    return { firstContentfulPaint, shown: Number(await shown.jsonValue()) };
  } finally {
    await context.close();
  }
}

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
  const metricsPort = SCRAPE_EVERY_S === undefined ? undefined : await freePort();
  const bffStarted = performance.now();
  const bff = await startBuiltBff(port, [
    '--kubeconfig',
    kubeconfigFile,
    ...(metricsPort === undefined ? [] : ['--metrics-port', String(metricsPort)]),
  ]);
  console.log(
    `   BFF started and ready (/readyz) in ${((performance.now() - bffStarted) / 1000).toFixed(1)} s`,
  );
  const browser = await launchChromium();
  let stopChurn: () => void = () => undefined;
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // tsx compiles with esbuild's keepNames, which wraps named inner functions in `__name(...)`;
    // the page has no such helper, so give it one before the probe's source runs there.
    await page.addInitScript({ content: 'window.__name = (target) => target;' });
    await page.addInitScript(installProbe, PAINTED_EVENT);
    // `--record-in load`: a trace or CPU profile of the first load, navigation to live.
    const stopLoadRecording =
      values['record-in'] === 'load' ? await startRecording(browser, page, 'load') : undefined;
    started = performance.now();
    await page.goto(`http://127.0.0.1:${port}/allocations`);
    // At 10,000 nodes the first snapshot takes longer than Playwright's 30 s default.
    const loading = { timeout: 600_000 };
    await page
      .getByTestId('stream-status')
      .and(page.locator('[data-status="live"]'))
      .waitFor(loading);
    await page.getByTestId('instance-row').first().waitFor(loading);
    await page.getByTestId('node-row').first().waitFor(loading);
    const loadedMs = performance.now() - started;
    await stopLoadRecording?.();
    const totals = await page.getByTestId('alloc-totals').textContent();
    console.log(
      `   page live with the whole cluster in ${(loadedMs / 1000).toFixed(1)} s after the BFF was ready (${totals})`,
    );
    const first = await page.evaluate(
      () => (window as unknown as { firstSnapshot?: FirstSnapshot }).firstSnapshot,
    );
    if (first)
      console.log(
        `   where the first load went (ms after navigation start): first snapshot part in at ${ms(first.firstPart)} (page, script, subscription and the BFF's answer), last of ${first.parts} part(s) at ${ms(first.lastPart)} (${ms(first.lastPart - first.firstPart)} transfer and parse), ${first.records} records applied and painted at ${ms(first.paintedAt)} (${ms(first.paintedAt - first.lastPart)} after the last part: snapshot to first paint)`,
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
    /** While set, changes falling due are skipped, not saved up (see the subscribers' phase). */
    let churnPaused = false;
    const churnStartedAt = performance.now();
    const interval = setInterval(() => {
      const due = Math.floor(((performance.now() - churnStartedAt) / 1000) * RATE);
      if (churnPaused) issued = due;
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

    const churnStart = performance.now();
    let nextMemory = churnStart + 60_000;
    const phases: PhaseResult[] = [];
    /** One phase of MINUTES of churn; `during` runs beside it (a scraper, subscribers). */
    const measure = async (label: string, during?: PhaseLoad) => {
      const clock = await mainThreadClock(page);
      const busyAtStart = await clock.read();
      const phaseStart = performance.now();
      const all: PageProbe = {
        frames: [],
        changeToPaint: [],
        feedToPaint: [],
        events: 0,
        records: 0,
        longTasks: [],
      };
      await drainProbe(page);
      // Optional: a trace or CPU profile of the first 10 s of the phase `--record-in` names.
      const recordUntil = phaseStart + 10_000;
      let stopRecording =
        label === RECORD_IN
          ? await startRecording(browser, page, `the first 10 s of "${label}"`)
          : undefined;
      const changesAtStart = changes;
      const end = phaseStart + MINUTES * 60_000;
      while (performance.now() < end) {
        await page.waitForTimeout(Math.min(5_000, Math.max(0, end - performance.now())));
        if (stopRecording && performance.now() >= recordUntil) {
          await stopRecording();
          stopRecording = undefined;
        }
        const taken = await drainProbe(page);
        all.frames.push(...taken.frames);
        all.changeToPaint.push(...taken.changeToPaint);
        all.feedToPaint.push(...taken.feedToPaint);
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
      await stopRecording?.();
      const seconds = (performance.now() - phaseStart) / 1000;
      const busyAtEnd = await clock.read();
      await clock.close();
      const share = (key: keyof typeof busyAtEnd) =>
        Number(((100 * (busyAtEnd[key] - busyAtStart[key])) / seconds).toFixed(1));
      const result: PhaseResult = {
        label,
        seconds,
        changes: changes - changesAtStart,
        probe: all,
        busy: {
          task: share('task'),
          script: share('script'),
          style: share('style'),
          layout: share('layout'),
        },
        load: loadavg()[0] ?? Number.NaN,
        beside: (await during?.report()) ?? '',
      };
      phases.push(result);
      printPhase(result);
    };

    await measure('churn');
    if (SCRAPE_EVERY_S !== undefined && metricsPort !== undefined)
      await measure(
        `churn + /metrics every ${SCRAPE_EVERY_S} s`,
        startScraper(`http://127.0.0.1:${metricsPort}/metrics`, SCRAPE_EVERY_S * 1000),
      );
    if (SUBSCRIBERS !== undefined) {
      // The subscribers resume from one snapshot's id, which the feed replays from only while
      // it is within its window of changes (5,000): at 10,000 nodes reading that snapshot takes
      // longer than the churn takes to fill the window, and then each of them would be sent the
      // whole cluster (megabytes each) instead. The churn waits while they join.
      churnPaused = true;
      const subscribers = await startSubscribers(`http://127.0.0.1:${port}`, SUBSCRIBERS);
      churnPaused = false;
      await measure(`churn + ${SUBSCRIBERS} allocations.watch subscribers`, subscribers);
    }
    stopChurn();
    const churnSeconds = (performance.now() - churnStart) / 1000;
    memory.push({ minute: Number((churnSeconds / 60).toFixed(1)), ...(await pageMemory(page)) });
    const shown = await page.getByTestId('alloc-totals').textContent();
    console.log(
      `   churn: ${changes} changes in ${churnSeconds.toFixed(0)} s (${(changes / churnSeconds).toFixed(1)}/s through the API; ${missed} skipped with ${MAX_IN_FLIGHT} in flight, ${failed} refused); at the end: ${shown}`,
    );
    if (phases.length > 1) {
      heading(
        'phases side by side (× churn alone: the ratio to the first phase of this run)',
        'frame p95 ≤ 16.7 ms + 1 ms; change-to-DOM p95 ≤ 250 ms; a scraper changes neither',
      );
      const alone = phases[0];
      const ratio = (value: number, base: number) => Number((value / base).toFixed(2));
      const framesAlone = percentile(alone?.probe.frames ?? [], 95);
      const changesAlone = percentile(alone?.probe.changeToPaint ?? [], 95);
      console.table(
        Object.fromEntries(
          phases.map((phase) => [
            phase.label,
            {
              'frame p95 ms': ms(percentile(phase.probe.frames, 95)),
              'frame p95 ×': ratio(percentile(phase.probe.frames, 95), framesAlone),
              'change-to-DOM p95 ms': ms(percentile(phase.probe.changeToPaint, 95)),
              'change-to-DOM p95 ×': ratio(percentile(phase.probe.changeToPaint, 95), changesAlone),
              'feed-to-DOM p95 ms': ms(percentile(phase.probe.feedToPaint, 95)),
              'main thread busy %': phase.busy.task,
              'changes/s': Number((phase.changes / phase.seconds).toFixed(1)),
              'load (1 min)': Number(phase.load.toFixed(1)),
            },
          ]),
        ),
      );
    }

    // First paint of the two list pages, each in a fresh browser context (no cached script),
    // with the BFF and cluster as they are now: under no churn, the whole cluster listed.
    heading(
      'first paint in a new browser context (navigation start →)',
      'the snapshot on screen ≤ 2 s',
    );
    for (const [path, present, absent] of [
      [
        '/allocations',
        ['[data-testid="stream-status"][data-status="live"]', '[data-testid="node-row"]'],
        [],
      ],
      [
        '/workloads',
        ['.workloads-page .ant-table-tbody tr'],
        ['.workloads-page .ant-spin-spinning'],
      ],
    ] as const) {
      const paint = await firstPaint(browser, `http://127.0.0.1:${port}${path}`, present, absent);
      console.log(
        `   ${path}: first contentful paint ${ms(paint.firstContentfulPaint)} ms; the cluster's data on screen (first frame after it is in the DOM) ${ms(paint.shown)} ms; load ${loadavg()[0]?.toFixed(1)}`,
      );
    }

    heading(
      `page memory over ${(churnSeconds / 60).toFixed(1)} min of churn (after a forced GC)`,
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
      `   machine load average at the end: ${loadavg()
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
