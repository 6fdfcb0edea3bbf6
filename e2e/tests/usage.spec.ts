import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { freePort, startConsole, startConsoleOn, stopConsole } from '../support/bff.js';
import { kubectl, startSim } from '../support/cluster.js';

/**
 * Usage as the operator sees it (issue 28). Two Deployments whose pod templates set the embedded
 * cluster's simulated use, made with kubectl on the standalone cluster: one at 0 %, one at 80 %
 * of its own allocation. A console on that cluster through its kubeconfig has no usage source
 * (the cluster stays up for the whole file, so "no source" is what it checks, not a cluster
 * gone); a console whose embedded cluster starts from a copy of the same state once both are
 * rolled out reads its exporter, and with a short `--idle-after` flags the quiet one. Both are
 * clusters of the test's own (the embedded one's model is what it checks), so it runs alike on
 * either tier.
 */
const SIMULATED = 'mgpu.console.io/simulated-utilization';
const IDLE_AFTER = '20s';

const WORDS = {
  'zh-CN': {
    unavailable: '未配置 GPU 用量来源',
    noSource: '未配置用量来源',
    simulated: '模拟数据',
    idle: '闲置',
    idleHours: /^闲置 · 至少 \d+(\.\d+)? GPU·小时$/,
    idleUnknown: '是否闲置未知',
    lowerBound: /^至少：/,
    efficiency: '效率',
    wholeCard: '整卡',
    team: '各命名空间（团队）的 GPU 用量',
    efficiencyColumn: '效率',
    historyUsed: '算力实际使用（占资源池的 %）',
    historyAllocated: '算力已分配（占资源池的 %）',
  },
  en: {
    unavailable: 'No GPU usage source configured',
    noSource: 'no usage source',
    simulated: 'Simulated',
    idle: 'Idle',
    idleHours: /^Idle · at least \d+(\.\d+)? GPU-hours$/,
    idleUnknown: 'idle unknown',
    lowerBound: /^At least: /,
    efficiency: 'efficiency',
    wholeCard: 'whole card',
    team: 'GPU usage per namespace (team)',
    efficiencyColumn: 'Efficiency',
    historyUsed: 'Compute used (% of the pool)',
    historyAllocated: 'Compute allocated (% of the pool)',
  },
} as const;

const suffix = Date.now().toString(36);
// Two teams, so the team table has one of each to sort.
const idle = { namespace: 'default', name: `usage-idle-${suffix}` };
const busy = { namespace: 'team-a', name: `usage-busy-${suffix}` };
let dir = '';
let sim: ChildProcess | undefined;
let noSourceConsole: ChildProcess | undefined;
let noSourceURL = '';
let embeddedConsole: ChildProcess | undefined;
let embeddedURL = '';

/** The console's own manifest of the seed request (its preview), its template saying `percent`. */
async function createAt(
  page: Page,
  consoleURL: string,
  kubeconfig: string,
  { namespace, name }: typeof idle,
  percent: string,
) {
  const request = seedRequest(name, { namespace });
  const input = encodeURIComponent(JSON.stringify({ request, lang: 'en' }));
  const response = await page.request.get(`${consoleURL}/trpc/workload.preview?input=${input}`);
  expect(response.ok()).toBe(true);
  const manifest = (await response.json()).result.data.manifest as {
    spec: { template: { metadata: { annotations?: Record<string, string> } } };
  };
  const template = manifest.spec.template.metadata;
  template.annotations = { ...template.annotations, [SIMULATED]: percent };
  kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify(manifest));
}

const inLanguage = (page: Page, lang: keyof typeof WORDS) =>
  page.addInitScript((value) => localStorage.setItem('mgpu.lang', value), lang);

const rowOf = (page: Page, { namespace, name }: typeof idle) =>
  page.locator(`tr[data-row-key="Deployment/${namespace}/${name}"]`);

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-usage-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const stateFile = join(dir, 'cluster.json');
  sim = await startSim(kubeconfig, ['--state-file', stateFile]);
  const noSourcePort = await freePort();
  noSourceConsole = await startConsoleOn(noSourcePort, kubeconfig);
  noSourceURL = `http://127.0.0.1:${noSourcePort}`;
  const page = await browser.newPage();
  await createAt(page, noSourceURL, kubeconfig, idle, '0');
  await createAt(page, noSourceURL, kubeconfig, busy, '80');
  await page.close();
  // Both rolled out (their pods placed on cards and ready) before the state is copied, so the
  // embedded cluster starts with what the no-source console shows.
  for (const { namespace, name } of [idle, busy])
    kubectl(kubeconfig, [
      'rollout',
      'status',
      `deployment/${name}`,
      '-n',
      namespace,
      '--timeout=60s',
    ]);
  // The sim writes its state file whole (a rename) on every change: a copy is one snapshot.
  const embeddedState = join(dir, 'embedded.json');
  copyFileSync(stateFile, embeddedState);
  // The standalone cluster's objects, now the embedded cluster of a console that reads its
  // exporter in-process; the standalone one keeps running for the no-source console.
  const port = await freePort();
  embeddedConsole = await startConsole(port, embeddedState, ['--idle-after', IDLE_AFTER]);
  embeddedURL = `http://127.0.0.1:${port}`;
});

test.afterAll(async () => {
  if (noSourceConsole) await stopConsole(noSourceConsole);
  if (embeddedConsole) await stopConsole(embeddedConsole);
  if (sim) await stopConsole(sim);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];

  test(`no usage source: a notice with the flag, and every figure "—" with why, never 0% (${lang})`, async ({
    page,
  }) => {
    await inLanguage(page, lang);
    await page.goto(`${noSourceURL}/workloads`);
    const notice = page.getByTestId('usage-unavailable');
    await expect(notice).toContainText(words.unavailable);
    await expect(notice).toContainText('--prometheus-url');
    for (const workload of [idle, busy]) {
      const usage = rowOf(page, workload).getByTestId('usage');
      await expect(usage).toHaveAttribute('data-efficiency', 'unknown');
      await expect(usage.getByTestId('usage-unknown')).toContainText(words.noSource);
      // Used is unknown beside the allocation (the seed's 2 cards × 60 %), no efficiency at all.
      await expect(usage).toContainText('— / 120%');
      await expect(usage.getByTestId('usage-efficiency')).toHaveCount(0);
      await expect(usage.getByTestId('usage-idle')).toHaveCount(0);
      // Whether it is idle is not known either: said, not left blank (blank reads "not idle").
      await expect(usage.getByTestId('usage-idle-unknown')).toHaveText(words.idleUnknown);
    }
    // No used line in the pool history either: unknown is not drawn as 0.
    await page.goto(`${noSourceURL}/allocations`);
    await expect(page.getByRole('figure', { name: words.historyAllocated })).toBeVisible();
    await expect(page.getByRole('figure', { name: words.historyUsed })).toHaveCount(0);
  });

  test(`embedded model: the 0 % workload is flagged ${words.idle}, the 80 % one works at ≈80 % (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await inLanguage(page, lang);
    await page.goto(`${embeddedURL}/workloads`);
    await expect(page.getByTestId('usage-simulated')).toHaveText(words.simulated);

    const busyUsage = rowOf(page, busy).getByTestId('usage');
    await expect(busyUsage.getByTestId('usage-efficiency')).toHaveText(
      new RegExp(`^${words.efficiency} (7\\d|8\\d|90)%$`),
      // The console reads the exporter every ~15 s: the first reading may be on its way.
      { timeout: 60_000 },
    );
    const efficiency = Number(await busyUsage.getAttribute('data-efficiency'));
    expect(Math.abs(efficiency - 0.8)).toBeLessThanOrEqual(0.1);

    const idleUsage = rowOf(page, idle).getByTestId('usage');
    // Quiet for `--idle-after` while holding its cards: the badge, with the GPU-hours held idle.
    await expect(idleUsage.getByTestId('usage-idle')).toHaveText(words.idleHours, {
      timeout: 150_000,
    });
    // "At least": the quiet time counts only as far back as the source looks; the badge says why.
    await expect(idleUsage.getByTestId('usage-idle')).toHaveAttribute('title', words.lowerBound);
    await expect(idleUsage.getByTestId('usage-efficiency')).toHaveText(
      new RegExp(`^${words.efficiency} [0-9]%$`),
    );
    // As long held, at work: never flagged.
    await expect(busyUsage.getByTestId('usage-idle')).toHaveCount(0);

    // Its instances: each one's own use beside what it was given, never its card's.
    await page.goto(`${embeddedURL}/workloads/${busy.namespace}/${busy.name}`);
    const used = page.getByTestId('instance-used');
    await expect(used).toHaveCount(2, { timeout: 30_000 });
    await expect(page.getByTestId('usage-simulated')).toHaveText(words.simulated);
    for (const cell of await used.all()) {
      await expect(cell).toHaveAttribute('data-whole-card', 'false');
      await expect(cell).not.toContainText(words.wholeCard);
      await expect(cell).toContainText('%');
    }
  });

  test(`the team table counts the idle workload and sorts by efficiency (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await inLanguage(page, lang);
    await page.goto(`${embeddedURL}/allocations`);
    const table = page.getByTestId('namespace-usage');
    await expect(table.getByRole('heading', { name: words.team })).toBeVisible();
    await expect(table.getByTestId('usage-simulated')).toHaveText(words.simulated);
    const team = table.locator(`tr[data-namespace="${idle.namespace}"]`);
    await expect(team.getByTestId('namespace-idle-workloads')).toHaveText(/^[1-9]\d* \/ \d+$/, {
      timeout: 90_000,
    });
    await expect(team.getByTestId('namespace-efficiency')).toHaveText(/^\d+%$/);
    // The GPU-hours it held idle, a lower bound: "≥", with why on hover.
    const idleHours = team.getByTestId('namespace-idle-hours');
    await expect(idleHours).toHaveText(/^≥ \d+(\.\d+)?$/);
    await expect(idleHours).toHaveAttribute('title', words.lowerBound);

    // Lowest efficiency first, then highest first; an unknown one stays last either way.
    const efficiencies = async () =>
      (await table.getByTestId('namespace-efficiency').allTextContents()).map((text) =>
        text.startsWith('—') ? null : Number.parseInt(text, 10),
      );
    const inOrder = (values: (number | null)[], sign: 1 | -1) => {
      const known = values.filter((value) => value !== null);
      expect(values.slice(0, known.length)).toEqual(known);
      expect(known).toEqual([...known].sort((a, b) => sign * (a - b)));
    };
    // Both teams' figures are in: the idle one's and the busy one's.
    await expect(table.locator(`tr[data-namespace="${busy.namespace}"]`)).toBeVisible();
    const header = table.getByRole('columnheader', { name: words.efficiencyColumn });
    await expect(header).toHaveAttribute('aria-sort', 'ascending');
    inOrder(await efficiencies(), 1);
    await header.click();
    await expect(header).toHaveAttribute('aria-sort', 'descending');
    inOrder(await efficiencies(), -1);

    // The pool history: used beside allocated, once the source has answered a sample.
    await expect(page.getByRole('figure', { name: words.historyAllocated })).toBeVisible();
    await expect(page.getByRole('figure', { name: words.historyUsed })).toBeVisible({
      timeout: 30_000,
    });
  });
}
