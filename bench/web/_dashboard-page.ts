/// <reference lib="dom" />
/**
 * What `web/dashboard.ts` measures inside the page: the probe installed before the app starts
 * (frames, painted batches, long tasks), the page's memory and main-thread clock, the `--trace` /
 * `--profile` recording, and the first paint of a fresh context.
 */
import { writeFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { values } from './_dashboard-options.js';

/** The first snapshot's way onto the screen, in the page's clock (ms after navigation start). */
export interface FirstSnapshot {
  firstPart: number;
  lastPart: number;
  parts: number;
  paintedAt: number;
  records: number;
}

export interface PageProbe {
  frames: number[];
  changeToPaint: number[];
  feedToPaint: number[];
  events: number;
  records: number;
  longTasks: number[];
}

/** Listeners set before the app starts: frame intervals, painted batches, long tasks. */
export function installProbe(eventName: string) {
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
export async function drainProbe(page: Page): Promise<PageProbe> {
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

export async function pageMemory(page: Page) {
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
export async function mainThreadClock(page: Page) {
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
export async function startRecording(
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

/**
 * Navigation start → first contentful paint (Paint Timing), and → the first animation frame in
 * which every `present` selector matches and no `absent` one does (the page's data on screen),
 * in a fresh browser context: nothing cached, as a new operator's first visit.
 */
export async function firstPaint(
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
