import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { freePort, startConsole, startConsoleOn, stopConsole } from '../support/bff.js';
import { startSim } from '../support/cluster.js';

/**
 * Where the used figures come from, said on the pool history too (review S8/W4), and the result
 * page's used column asked in one `usage.cards` call for all its nodes (review W7). A console on
 * its own embedded cluster reads the exporter in-process (the simulator's model); a console on
 * a standalone cluster through its kubeconfig has no usage source. Both clusters are the test's
 * own, so it runs alike on either tier.
 */
const WORDS = {
  'zh-CN': { simulated: '模拟数据', unavailable: '未配置 GPU 用量来源' },
  en: { simulated: 'Simulated', unavailable: 'No GPU usage source configured' },
} as const;

const name = `usage-cards-${Date.now().toString(36)}`;
let dir = '';
let sim: ChildProcess | undefined;
let noSourceConsole: ChildProcess | undefined;
let noSourceURL = '';
let embeddedConsole: ChildProcess | undefined;
let embeddedURL = '';

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-usage-cards-'));
  const kubeconfig = join(dir, 'kubeconfig');
  sim = await startSim(kubeconfig);
  const noSourcePort = await freePort();
  noSourceConsole = await startConsoleOn(noSourcePort, kubeconfig);
  noSourceURL = `http://127.0.0.1:${noSourcePort}`;
  const port = await freePort();
  embeddedConsole = await startConsole(port, join(dir, 'cluster.json'));
  embeddedURL = `http://127.0.0.1:${port}`;
  // Three replicas of the seed (2 cards × 60 % each): their instances span cards, often nodes.
  const page = await browser.newPage();
  const response = await page.request.post(`${embeddedURL}/trpc/workload.create`, {
    data: seedRequest(name, { replicas: 3 }),
    headers: { Origin: embeddedURL },
  });
  expect(response.ok()).toBe(true);
  await page.close();
});

test.afterAll(async () => {
  for (const child of [embeddedConsole, noSourceConsole, sim]) if (child) await stopConsole(child);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const inLanguage = (page: Page, lang: keyof typeof WORDS) =>
  page.addInitScript((value) => localStorage.setItem('mgpu.lang', value), lang);

/** The inputs of every `usage.cards` call the page made (batched or not, GET or POST). */
function usageCardsCalls(page: Page): { nodes?: string[] }[][] {
  const calls: { nodes?: string[] }[][] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    const paths = url.pathname.replace(/^\/trpc\//, '').split(',');
    if (!paths.includes('usage.cards')) return;
    const body = (request.postDataJSON() ?? JSON.parse(url.searchParams.get('input') ?? '{}')) as
      | Record<string, { nodes?: string[] }>
      | undefined;
    calls.push(paths.flatMap((path, i) => (path === 'usage.cards' ? [body?.[i] ?? {}] : [])));
  });
  return calls;
}

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];

  test(`the pool history says its used compute is simulated, or that there is no source (${lang})`, async ({
    page,
  }) => {
    await inLanguage(page, lang);
    await page.goto(`${embeddedURL}/allocations`);
    const history = page.getByTestId('pool-history');
    await expect(history.getByTestId('usage-simulated')).toHaveText(words.simulated);
    await expect(history.getByTestId('usage-unavailable')).toHaveCount(0);

    await page.goto(`${noSourceURL}/allocations`);
    const none = page.getByTestId('pool-history');
    await expect(none.getByTestId('usage-unavailable')).toContainText(words.unavailable);
    await expect(none.getByTestId('usage-simulated')).toHaveCount(0);
  });

  test(`the result page asks usage.cards once for all its nodes (${lang})`, async ({ page }) => {
    await inLanguage(page, lang);
    const calls = usageCardsCalls(page);
    await page.goto(`${embeddedURL}/workloads/default/${name}`);
    // 3 pods × 2 cards: six instances, each with a used cell.
    const used = page.getByTestId('instance-used');
    await expect(used).toHaveCount(6, { timeout: 30_000 });
    await expect(used.first()).toContainText('%', { timeout: 30_000 });
    const rows = page.locator('tr[data-row-key]').filter({ has: used });
    const nodes = new Set<string>();
    for (const row of await rows.all())
      nodes.add(((await row.locator('td').nth(2).textContent()) ?? '').trim());
    expect(nodes.size).toBeGreaterThan(0);
    // One call (a 15 s poll may have sent a second by now: each is one call for every node).
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) {
      expect(call).toHaveLength(1);
      expect([...(call[0]?.nodes ?? [])].sort()).toEqual([...nodes].sort());
    }
  });
}
