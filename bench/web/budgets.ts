/// <reference lib="dom" />
/**
 * The web app's budgets (issue 7), on the production build served by the built BFF on the
 * embedded cluster, in Debian's Chromium:
 * - initial JS of /workloads/new, gzip (target ≤ 250 KB);
 * - first meaningful paint of the form: navigation start → the paint that shows the form's
 *   title (Element Timing `renderTime` of `h1[elementtiming=form-title]`), target ≤ 1.5 s;
 * - keystroke-to-paint of the per-card panel on an 8-container form: the keydown's own
 *   timestamp → the end of the frame that paints the per-card panel re-rendered for that
 *   keystroke (the panel marks `mgpu:per-card-panel` when it commits; a rAF after that mark,
 *   then a message task that runs after the frame's paint), p95 (target ≤ 16 ms). Read three
 *   ways: on Chromium's 60 Hz frame clock as it comes, where a keystroke first waits 0–16.7 ms
 *   for the next frame whatever the page does (so no page, not even the bare input below, has a
 *   p95 under 16 ms); on the same clock from that first frame's start (the rAF timestamp), which
 *   takes out only that wait; and with frames unclocked, where a frame starts as soon as there
 *   is something to paint.
 * Each figure has baselines measured in the same run, interleaved with it, on pages served
 * here: the same probe on a bare input that mirrors itself into a "panel" (frame alignment alone
 * puts a keystroke up to one 16.7 ms frame away from its paint) and on a static copy of the
 * 8-container form where a few lines of script stand in for the app (the browser's share of a
 * keystroke on a page of this size), and the same paint entry on a static copy of the rendered
 * form (its DOM and stylesheet without script).
 * Build first (`pnpm build`). Figures only: nothing here fails on time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { freePort, haveBuiltConsole, launchChromium, startBuiltBff } from '../lib/console.js';
import { heading, median, percentile } from '../lib/report.js';

const PAINT_RUNS = 9;
const KEYSTROKES = 120;
/** The user-timing mark the per-card panel sets each time it commits (create-workload). */
const PANEL_MARK = 'mgpu:per-card-panel';

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * The keystroke baseline: an input whose value a "panel" mirrors, setting the same mark as the
 * real panel.
 */
const BASELINE_KEYS = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>baseline</title></head>
<body><label for="c">GPU 算力</label> <input id="c"><p id="panel">-</p>
<script type="module">
const input = document.getElementById('c');
const panel = document.getElementById('panel');
input.addEventListener('input', () => {
  panel.textContent = '算力 ' + input.value;
  performance.clearMarks('${PANEL_MARK}');
  performance.mark('${PANEL_MARK}');
});
</script></body></html>`;

/**
 * The keystroke baseline on the form's own page: a static copy of the 8-container form (its DOM
 * and stylesheet) where a few lines of script, instead of the app, write the typed value into
 * the last container's panel title and compute bar and set the mark. What it measures is the
 * browser's part of a keystroke on a page of this size and style; the rest is the app's script.
 */
const MIRROR_SCRIPT = `<script type="module">
const input = document.getElementById('field-containers-7-gpu-compute');
const title = document.querySelectorAll('.share-title')[7];
const fills = [...document.querySelectorAll('.share-group')[7].querySelectorAll('.bar-fill')];
input.addEventListener('input', () => {
  title.textContent = 'main-8 · ' + input.value;
  for (const fill of fills) fill.style.transform = 'scaleX(' + input.value.length / 5 + ')';
  performance.clearMarks('${PANEL_MARK}');
  performance.mark('${PANEL_MARK}');
});
</script>`;

/**
 * Serves the baselines: `/keys` above, `/paint`, a static copy of the rendered form (the same
 * DOM and stylesheet, no script), so the paint baseline is what the browser needs for the form's
 * content alone (this machine has no CJK font: laying out the Chinese text is slow), and
 * whatever else is published in `pages` (the 8-container copy with `MIRROR_SCRIPT`).
 */
function startBaselineServer(
  staticForm: StaticForm,
): Promise<{ server: Server; pages: Map<string, string> }> {
  const pages = new Map([
    ['/keys', BASELINE_KEYS],
    ['/paint', staticForm.html],
  ]);
  const server = createServer((request, response) => {
    const css = staticForm.stylesheets.get(request.url ?? '');
    response.writeHead(200, {
      'content-type': css === undefined ? 'text/html; charset=utf-8' : 'text/css',
    });
    response.end(css ?? pages.get(request.url ?? '') ?? staticForm.html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, pages })));
}

interface StaticForm {
  html: string;
  /** The console's stylesheets by path, served beside the copy (same origin, as for the form). */
  stylesheets: Map<string, string>;
}

/** A page's HTML as rendered, without its scripts. */
const withoutScripts = (html: string) =>
  html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '');

/** The form as rendered, without its scripts. */
async function staticCopyOfForm(browser: Browser, url: string): Promise<StaticForm> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('GPU 算力', { exact: true }).waitFor();
  const html = await page.content();
  await context.close();
  const stylesheets = new Map<string, string>();
  for (const [, path] of html.matchAll(/<link rel="stylesheet"[^>]*href="([^"]+)"/g)) {
    if (path !== undefined) stylesheets.set(path, await (await fetch(new URL(path, url))).text());
  }
  return { html: withoutScripts(html), stylesheets };
}

async function initialJs(browser: Browser, url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const scripts: { url: string; gzip: number; raw: number }[] = [];
  const pending: Promise<void>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    pending.push(
      response.body().then((body) => {
        scripts.push({
          url: new URL(response.url()).pathname,
          raw: body.length,
          gzip: gzipSync(body).length,
        });
      }),
    );
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.getByLabel('GPU 算力', { exact: true }).waitFor();
  await Promise.all(pending);
  await context.close();
  return scripts;
}

/**
 * Navigation start → the paint of the title, from a fresh context (no HTTP cache). The observer
 * is an init script and the result is read over CDP: Playwright's own evaluate injects a script
 * of ~50–90 ms on this machine, which would land before the form's first frame and delay it.
 */
async function titlePaint(browser: Browser, url: string) {
  const context = await browser.newContext();
  await context.addInitScript(`new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.identifier === 'form-title') window.__titlePaint = entry.renderTime || entry.startTime;
  }).observe({ type: 'element', buffered: true });`);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await page.goto(url, { waitUntil: 'commit' });
  const read = `JSON.stringify(window.__titlePaint === undefined ? null : {
    title: window.__titlePaint,
    fcp: performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? null,
  })`;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const answer = await cdp.send('Runtime.evaluate', { expression: read, returnByValue: true });
    const times = JSON.parse(String(answer.result.value)) as {
      title: number;
      fcp: number | null;
    } | null;
    if (times === null) continue;
    await context.close();
    return { title: times.title, fcp: times.fcp ?? Number.NaN };
  }
}

async function formPaint(browser: Browser, url: string, baselineUrl: string) {
  const form: number[] = [];
  const fcp: number[] = [];
  const baseline: number[] = [];
  // Interleaved, so both see the same machine.
  for (let run = 0; run < PAINT_RUNS; run++) {
    const times = await titlePaint(browser, url);
    form.push(times.title);
    fcp.push(times.fcp);
    baseline.push((await titlePaint(browser, baselineUrl)).title);
  }
  return { form, fcp, baseline };
}

async function eightContainers(page: Page) {
  for (let n = 2; n <= 8; n++) await page.getByRole('button', { name: '添加容器' }).click();
  const fields = (label: string) => page.locator(`label:text-is("${label}")`);
  const computes = page.getByLabel('GPU 算力', { exact: false });
  const memories = page.getByLabel('GPU 显存', { exact: false });
  if ((await computes.count()) !== 8 || (await fields('GPU 算力').count()) !== 8)
    throw new Error('expected 8 containers on the form');
  for (let i = 0; i < 8; i++) {
    await computes.nth(i).fill('0.5');
    await memories.nth(i).fill('4');
  }
}

/**
 * Types into `input` and times each keystroke: the keydown event's own timestamp (so time the
 * event waited for the main thread counts) → the end of the first frame painted after the
 * panel committed for that keystroke.
 */
interface Timings {
  samples: number[];
  scripts: number[];
  /** Keydown → the start of the first frame after it (its rAF timestamp), 0 if it started before. */
  frameWaits: number[];
}

async function typeAndTime(page: Page, selector: string): Promise<Timings> {
  // A string, not a function: tsx's name helpers do not exist in the page.
  await page.evaluate(`(() => {
    window.keystrokeSamples = [];
    window.scriptSamples = [];
    window.frameWaits = [];
    // A second round on the same page reuses the listener with fresh arrays.
    if (window.probing) return;
    window.probing = true;
    document.addEventListener('keydown', (event) => {
      const start = event.timeStamp;
      let firstFrame;
      // Each frame: has the panel committed for this keystroke? Then the frame being produced
      // paints it, and a message posted now runs right after that paint.
      const frame = (frameStart) => {
        firstFrame ??= frameStart;
        const entry = performance.getEntriesByName(${JSON.stringify(PANEL_MARK)}).at(-1);
        if (entry === undefined || entry.startTime < start) {
          requestAnimationFrame(frame);
          return;
        }
        window.scriptSamples.push(entry.startTime - start);
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          window.keystrokeSamples.push(performance.now() - start);
          window.frameWaits.push(Math.max(0, firstFrame - start));
        };
        channel.port2.postMessage(null);
      };
      requestAnimationFrame(frame);
    }, true);
  })()`);
  const input = page.locator(selector);
  await input.click();
  await input.fill('');
  // Every keystroke changes the draft: 0 → 0. → 0.2 → 0.25 and back.
  const cycle = ['0', '.', '2', '5', 'Backspace', 'Backspace', 'Backspace', 'Backspace'];
  for (let i = 0; i < KEYSTROKES; i++) {
    await page.keyboard.press(cycle[i % cycle.length] ?? '0');
    await page.waitForTimeout(40);
  }
  await page.waitForTimeout(200);
  return (await page.evaluate(
    '({ samples: window.keystrokeSamples, scripts: window.scriptSamples, frameWaits: window.frameWaits })',
  )) as Timings;
}

const LAST_COMPUTE = '#field-containers-7-gpu-compute';

async function keystrokeToPaint(
  browser: Browser,
  url: string,
  baseline: { url: string; pages: Map<string, string> },
) {
  const context = await browser.newContext();
  const form = await context.newPage();
  await form.goto(url);
  await form.getByLabel('名称', { exact: true }).fill('bench');
  await form.getByLabel('镜像', { exact: true }).fill('nginx:1.27');
  await eightContainers(form);
  baseline.pages.set(
    '/keys-form',
    withoutScripts(await form.content()).replace('</body>', `${MIRROR_SCRIPT}</body>`),
  );
  const barePage = await context.newPage();
  await barePage.goto(`${baseline.url}/keys`);
  const mirrorPage = await context.newPage();
  await mirrorPage.goto(`${baseline.url}/keys-form`);
  const runs = { form: [] as Timings[], bare: [] as Timings[], mirror: [] as Timings[] };
  // Two rounds each, alternating, so a burst of load elsewhere does not land on one side only.
  for (let round = 0; round < 2; round++) {
    await form.bringToFront();
    runs.form.push(await typeAndTime(form, LAST_COMPUTE));
    await barePage.bringToFront();
    runs.bare.push(await typeAndTime(barePage, '#c'));
    await mirrorPage.bringToFront();
    runs.mirror.push(await typeAndTime(mirrorPage, LAST_COMPUTE));
  }
  const panelSlots = await form.getByTestId('card-slot').count();
  await context.close();
  const flat = (list: Timings[]): Timings => ({
    samples: list.flatMap((run) => run.samples),
    scripts: list.flatMap((run) => run.scripts),
    frameWaits: list.flatMap((run) => run.frameWaits),
  });
  return {
    form: flat(runs.form),
    bare: flat(runs.bare),
    mirror: flat(runs.mirror),
    panelSlots,
  };
}

const figures = (samples: readonly number[]) =>
  `median ${median(samples).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms (${samples.length} samples)`;

async function main() {
  if (!haveBuiltConsole()) {
    process.exitCode = 1;
    return;
  }
  const port = await freePort();
  const bff = await startBuiltBff(port, ['--embedded']);
  const browser = await launchChromium();
  const url = `http://127.0.0.1:${port}/workloads/new`;
  const served = await startBaselineServer(await staticCopyOfForm(browser, url));
  const baselineUrl = `http://127.0.0.1:${(served.server.address() as AddressInfo).port}`;
  const baseline = { url: baselineUrl, pages: served.pages };
  type Keys = Awaited<ReturnType<typeof keystrokeToPaint>>;
  const printKeys = (keys: Keys, read: (timings: Timings) => number[] = (t) => t.samples) => {
    console.log(`   form:         ${figures(read(keys.form))}; ${keys.panelSlots} card slots`);
    console.log(
      `   same page:    ${figures(read(keys.mirror))} (the form's DOM and CSS, a few lines of script instead of the app)`,
    );
    console.log(
      `   bare input:   ${figures(read(keys.bare))} (an input mirrored into a one-line panel)`,
    );
  };
  const printScript = (keys: Keys) => {
    const script = (timings: Timings) =>
      `median ${median(timings.scripts).toFixed(1)} ms, p95 ${percentile(timings.scripts, 95).toFixed(1)} ms`;
    console.log(
      `   keydown → panel committed (script): form ${script(keys.form)}; same page ${script(keys.mirror)}; bare input ${script(keys.bare)}`,
    );
    console.log(`   load average: ${load()}`);
  };
  /** Keystroke → paint less the keystroke's wait for the start of the next frame. */
  const fromFirstFrame = (timings: Timings) =>
    timings.samples.map((sample, i) => sample - (timings.frameWaits[i] ?? 0));
  try {
    console.log(`   load average at start: ${load()} on ${cpus().length} cores`);
    heading('initial JS of /workloads/new (gzip)', '≤ 250 KB');
    const scripts = await initialJs(browser, url);
    console.table(
      Object.fromEntries(
        scripts.map((s) => [
          s.url,
          { 'raw KB': +(s.raw / 1024).toFixed(1), 'gzip KB': +(s.gzip / 1024).toFixed(1) },
        ]),
      ),
    );
    const total = scripts.reduce((sum, s) => sum + s.gzip, 0);
    console.log(`   total: ${(total / 1024).toFixed(1)} KB gzip in ${scripts.length} file(s)`);

    heading('first meaningful paint of the form (navigation → form title painted)', '≤ 1500 ms');
    const paint = await formPaint(browser, url, `${baselineUrl}/paint`);
    console.log(`   form:     ${figures(paint.form)} cold loads`);
    console.log(`   baseline: ${figures(paint.baseline)} (static copy of the form, no script)`);
    console.log(`   form's first contentful paint: median ${median(paint.fcp).toFixed(0)} ms`);
    console.log(`   load average: ${load()}`);

    // Headless Chromium paints on an emulated 60 Hz clock, so a keystroke first waits up to
    // 16.7 ms for the next frame whatever the app does (the bare input's p95 shows it).
    heading(
      'keystroke → paint of the per-card panel, 8 containers, 60 Hz frames, as it comes',
      "p95 ≤ 16 ms, out of any page's reach on this clock (see the bare input)",
    );
    const clocked = await keystrokeToPaint(browser, url, baseline);
    printKeys(clocked);
    const waits = clocked.form.frameWaits;
    console.log(
      `   of which the wait for the next frame to start: form median ${median(waits).toFixed(1)} ms, p95 ${percentile(waits, 95).toFixed(1)} ms`,
    );
    printScript(clocked);

    // The same keystrokes from the start of the first frame after each: a page whose work fits
    // paints within that frame; work that runs past the frame's start, or a frame missed, counts.
    heading('the same keystrokes, from the start of the first frame after each', 'p95 ≤ 16 ms');
    printKeys(clocked, fromFirstFrame);

    // Unclocked, a frame is produced as soon as there is something to paint: what remains is the
    // app's own work from keydown to the panel on screen.
    heading('the same, frames unclocked (no vsync, no frame-rate limit)', 'p95 ≤ 16 ms');
    const unclocked = await launchChromium(['--disable-gpu-vsync', '--disable-frame-rate-limit']);
    try {
      const keys = await keystrokeToPaint(unclocked, url, baseline);
      printKeys(keys);
      printScript(keys);
    } finally {
      await unclocked.close();
    }
  } finally {
    await browser.close();
    served.server.close();
    bff.kill('SIGTERM');
  }
}

await main();
