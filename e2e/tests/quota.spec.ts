/**
 * Issue 17 item 6 in the browser: a namespace with a ResourceQuota on mGPU resources. The form
 * shows its used / limit under 命名空间 and refuses, while typing, a request the API server would
 * refuse pod by pod; the dashboard and /workloads list the quota. The quota is made through the
 * Kubernetes API (kubectl), so this spec runs its own standalone embedded cluster (`pnpm sim`)
 * and a console on it.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { freePort, stopConsole } from '../support/bff.js';
import { fillForm } from '../support/form.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const namespace = `quota-e2e-${Date.now().toString(36)}`;
const CORE = 'requests.vke.volcengine.com/mgpu-core';
const MEMORY = 'requests.vke.volcengine.com/mgpu-memory';

let work: string;
let cluster: ChildProcess;
let console_: ChildProcess;
let consoleUrl: string;

/** Resolves once the child has printed `word` on standard output. */
function printed(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(word)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before "${word}"`)));
  });
}

/** The namespace and its quota, made as an administrator would: kubectl on the sim's kubeconfig. */
function applyQuota(kubeconfig: string): void {
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'gpu', namespace },
      spec: { hard: { [CORE]: '100', [MEMORY]: '16384' } },
    },
  ];
  execFileSync(
    process.env.MGPU_TEST_KUBECTL ?? 'kubectl',
    ['--kubeconfig', kubeconfig, 'apply', '-f', '-'],
    {
      // One JSON document after the other: kubectl reads them as a stream.
      input: objects.map((object) => JSON.stringify(object)).join('\n'),
      stdio: ['pipe', 'ignore', 'inherit'],
    },
  );
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  work = mkdtempSync(join(tmpdir(), 'mgpu-quota-e2e-'));
  const kubeconfig = join(work, 'kubeconfig');
  const simPort = await freePort();
  cluster = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      'packages/cluster-sim/src/main.ts',
      '--port',
      String(simPort),
      '--kubeconfig',
      kubeconfig,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await printed(cluster, 'ready');
  applyQuota(kubeconfig);

  const port = await freePort();
  consoleUrl = `http://127.0.0.1:${port}`;
  console_ = spawn(
    process.execPath,
    [join(root, 'apps/bff/dist/main.js'), '--kubeconfig', kubeconfig, '--port', String(port)],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (;;) {
    if (console_.exitCode !== null) throw new Error(`the console exited with ${console_.exitCode}`);
    const ready = await fetch(`${consoleUrl}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
});

test.afterAll(async () => {
  if (console_) await stopConsole(console_);
  if (cluster) await stopConsole(cluster);
  rmSync(work, { recursive: true, force: true });
});

test('the form shows the namespace quota and refuses a request over it while typing', async ({
  page,
}) => {
  await page.goto(`${consoleUrl}/workloads/new`);
  await fillForm(page, {
    name: `over-${Date.now().toString(36)}`,
    policy: 'native-burst-share',
    multiCard: true,
    cards: '2',
    compute: '1.2',
    memoryGiB: '8',
  });
  await page.getByLabel('命名空间', { exact: true }).fill(namespace);

  await expect(page.getByTestId('namespace-quota')).toHaveText(
    `命名空间 ${namespace} 的配额 gpu：算力已用 0 / 1 卡，显存已用 0 / 16384 MiB`,
  );
  // compute 1.2 on 2 cards is charged 120 (60 per card × 2): over the 100 the quota allows.
  const compute = page.getByLabel('GPU 算力', { exact: true });
  await expect(compute).toHaveAttribute('aria-invalid', 'true');
  await expect(
    page.locator(`[id="${await compute.getAttribute('aria-describedby')}"]`),
  ).toContainText('资源配额 gpu');
  await expect(page.getByRole('button', { name: '创建' })).toBeDisabled();

  // 1 card's compute over 2 cards is exactly the quota: accepted.
  await compute.fill('1');
  await expect(compute).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByRole('button', { name: '创建' })).toBeEnabled();
});

test('the dashboard lists the namespace quota with used / limit', async ({ page }) => {
  await page.goto(`${consoleUrl}/allocations`);
  const row = page.getByTestId('quota-row').filter({ hasText: namespace });
  await expect(row).toContainText('gpu');
  await expect(row).toContainText('0 / 1');
});

test('/workloads shows the quota of the namespace filtered on', async ({ page }) => {
  await page.goto(`${consoleUrl}/workloads?namespace=${namespace}`);
  const rows = page.getByTestId('quota-row');
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(namespace);
  await expect(rows).toContainText('0 / 1');
});
