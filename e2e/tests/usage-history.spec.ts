import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  type PrometheusServer,
  startPrometheus,
} from '../../apps/bff/src/test-support/prometheus.js';
import { freePort, startConsoleOn, stopConsole } from '../support/bff.js';
import { startSim } from '../support/cluster.js';

/**
 * The pool history through Prometheus (issue 28): Debian's Prometheus scrapes the standalone
 * embedded cluster's GPU exporter for a while before a console with `--prometheus-url` starts;
 * the dashboard's "Compute used" chart then already says it reaches back before the start, in
 * both languages. With `--history-minutes 5` the history's range read steps by its 10 s interval
 * (at most 60 points over the retention), and Prometheus holds more than two steps before the
 * start, so a real reach-back is at least a step before it, not the start's own second. The cluster and Prometheus are the test's own, so it runs alike on either tier.
 */
const WORDS = {
  'zh-CN': {
    historyUsed: '算力实际使用（占资源池的 %）',
    before: /^算力实际使用从 .+ 起（早于控制台启动），读自 Prometheus/,
  },
  en: {
    historyUsed: 'Compute used (% of the pool)',
    before: /^Compute used reaches back to .+, before the console started, read from Prometheus/,
  },
} as const;

let dir = '';
let sim: ChildProcess | undefined;
let prometheus: PrometheusServer | undefined;
let consoleProcess: ChildProcess | undefined;
let consoleURL = '';
/** When Prometheus began scraping: the used compute cannot reach further back than that. */
let prometheusSince = 0;
const HISTORY_MINUTES = 5;
/** Seconds of scrapes (one a second) before the console starts: more than two 10 s steps. */
const SCRAPES_BEFORE = 25;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-usage-history-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const metricsPort = await freePort();
  sim = await startSim(kubeconfig, ['--gpu-metrics-port', String(metricsPort)]);
  prometheusSince = Date.now();
  prometheus = await startPrometheus({ targets: [`127.0.0.1:${metricsPort}`] });
  // More than two of the range read's steps of the cards' use before the console exists.
  await prometheus.waitForScrapes(SCRAPES_BEFORE);
  const port = await freePort();
  consoleProcess = await startConsoleOn(port, kubeconfig, [
    '--prometheus-url',
    prometheus.url,
    '--history-minutes',
    String(HISTORY_MINUTES),
  ]);
  consoleURL = `http://127.0.0.1:${port}`;
});

test.afterAll(async () => {
  if (consoleProcess) await stopConsole(consoleProcess);
  await prometheus?.close();
  if (sim) await stopConsole(sim);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];
  test(`the used compute chart shows the time before the console started (${lang})`, async ({
    page,
  }) => {
    await page.addInitScript((value) => localStorage.setItem('mgpu.lang', value), lang);
    await page.goto(`${consoleURL}/allocations`);
    await expect(page.getByRole('figure', { name: words.historyUsed })).toBeVisible({
      timeout: 30_000,
    });
    const before = page.getByTestId('history-used-before');
    await expect(before).toHaveText(words.before, { timeout: 30_000 });
    // The history's own samples begin at the start; the used compute's line begins earlier.
    const history = await (await page.request.get(`${consoleURL}/trpc/cluster.history`)).json();
    const { usedBefore, startedAt, samples, intervalMs, retentionMs } = history.result.data;
    const first = Date.parse(usedBefore[0].at);
    // The range read's step (pool-history.ts): the interval, or the retention over 60 points.
    const step = Math.max(intervalMs, Math.ceil(retentionMs / 60));
    expect(step).toBe(10_000);
    // A real reach-back: at least a whole step before the start, not the start's own second.
    expect(first).toBeLessThanOrEqual(Date.parse(startedAt) - step);
    expect(first).toBeLessThan(Date.parse(samples[0].at));
    // Never before Prometheus held anything.
    expect(first).toBeGreaterThanOrEqual(prometheusSince - step);
  });
}
