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
 *   unless `--scraper S`; `--scraper 0` skips it), with `--subscribers N` a phase with N
 *   `allocations.watch` subscribers, and (unless `--usage off`) a last phase with the page on a
 *   console that reads GPU usage from a real Prometheus (issue 28; see `_dashboard-usage.ts`),
 *   each beside the churn alone with the ratios, in one run.
 * Figures only: nothing here fails on time. Build first (`pnpm build`).
 *
 * The cluster (API server, scheduler, node agents) runs in this process, the built BFF in its
 * own; the driver's creates and deletes go over kept-alive connections, as the controllers'
 * requests do. Where the CPU goes: `BENCH_BFF_NODE_ARGS='--cpu-prof --cpu-prof-dir=D'` profiles
 * the BFF, and running this file itself under `node --cpu-prof` (see bench/run.ts for the other
 * flags) profiles the cluster and the driver; `--profile`/`--trace` are the page's.
 *
 * `pnpm bench dashboard [--minutes 10] [--rate 100] [--nodes 1000] [--prefill 3000] [--scraper 15] [--subscribers N] [--usage on|off] [--profile F] [--trace F] [--record-in load]`
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchCluster } from '../lib/cluster.js';
import { freePort, haveBuiltConsole, launchChromium, startBuiltBff } from '../lib/console.js';
import { CHURN_SHAPES, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';
import { type PhaseLoad, startScraper, startSubscribers } from './_dashboard-loads.js';
import {
  CARDS,
  MAX_IN_FLIGHT,
  MINUTES,
  NAMESPACE,
  NODES,
  PAINTED_EVENT,
  PREFILL,
  RATE,
  RECORD_IN,
  SCRAPE_EVERY_S,
  SUBSCRIBERS,
  USAGE_LABEL,
  USAGE_PHASE,
  values,
} from './_dashboard-options.js';
import {
  drainProbe,
  type FirstSnapshot,
  firstPaint,
  installProbe,
  mainThreadClock,
  type PageProbe,
  pageMemory,
  startRecording,
} from './_dashboard-page.js';
import { mib, ms, type PhaseResult, printPhase } from './_dashboard-report.js';
import { openNodeView, startUsageConsole, type UsageConsole } from './_dashboard-usage.js';

function podBody(index: number) {
  const shape = CHURN_SHAPES[index % CHURN_SHAPES.length];
  if (!shape) throw new Error('no pod shapes');
  return mgpuPod(`churn-${index}`, NAMESPACE, 'churn', shape);
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
  // Issue 28: a second console with a usage source, running through every phase (see --usage).
  const usageConsole: UsageConsole | undefined = USAGE_PHASE
    ? await startUsageConsole(cluster, kubeconfigFile)
    : undefined;
  if (usageConsole)
    console.log(`   a second console reads usage from Prometheus: ${usageConsole.url}`);
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
    // With a usage phase every phase shows one node's card grid, whose cards carry used figures.
    // Opened by a fresh load, as the usage phase's is, so both phases start alike.
    const openedNode = usageConsole
      ? await openNodeView(page, undefined, `http://127.0.0.1:${port}`)
      : undefined;
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
    if (usageConsole) {
      // The same page, node and churn on the console with usage: its cards' and instances'
      // used figures (usage.cards) and the team table (usage.namespaces), polled as they are.
      await openNodeView(page, openedNode, usageConsole.url);
      const usedLines = await page.getByTestId('card-used').count();
      await measure(USAGE_LABEL, {
        report: async () =>
          `usage shown: ${usedLines} card(s) with a used line when the phase began, ${await page.getByTestId('card-used').count()} at its end; ${await page.getByTestId('namespace-efficiency').count()} team(s) with an efficiency`,
      });
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
      const framesAloneMedian = median(alone?.probe.frames ?? []);
      const changesAlone = percentile(alone?.probe.changeToPaint ?? [], 95);
      console.table(
        Object.fromEntries(
          phases.map((phase) => [
            phase.label,
            {
              'frame median ms': ms(median(phase.probe.frames)),
              'frame median ×': ratio(median(phase.probe.frames), framesAloneMedian),
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
    await usageConsole?.stop();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(process.exitCode ?? 0);
