import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { kubectl, type ReachableCluster, startReachableCluster } from '../support/cluster.js';
import { createWithKubectl as createUnmanaged } from '../support/unmanaged.js';

let cluster: ReachableCluster;
test.beforeAll(async () => {
  cluster = await startReachableCluster();
});
test.afterAll(async () => {
  await cluster?.stop();
});

/** The console under test: the run's own under the real tier, else the one on our cluster. */
const consoleURL = (path: string) => `${cluster.consoleURL ?? ''}${path}`;

async function createThroughConsole(page: Page, name: string) {
  const response = await page.request.post(consoleURL('/trpc/workload.create'), {
    data: seedRequest(name),
    headers: { Origin: new URL(page.url()).origin },
  });
  expect(response.ok()).toBe(true);
}

/** A Deployment made with kubectl from the console's own manifest, minus its managed-by label. */
const createWithKubectl = (page: Page, name: string) =>
  createUnmanaged(page, cluster, seedRequest(name));

/** The Deployment as the Kubernetes API answers for it: its name, or '' once it is gone. */
const deploymentInCluster = (name: string) =>
  kubectl(cluster.kubeconfig, [
    'get',
    'deployment',
    name,
    '-n',
    'default',
    '--ignore-not-found',
    '-o',
    'name',
  ]).trim();

async function removeQuietly(page: Page, name: string) {
  await page.request.post(consoleURL('/trpc/workload.delete'), {
    data: { namespace: 'default', name, force: true },
    headers: { Origin: new URL(page.url()).origin },
  });
}

/** A workload of the test's own, made by the console or with kubectl, removed whatever happens. */
async function withWorkload(
  page: Page,
  prefix: string,
  madeBy: 'console' | 'kubectl',
  body: (name: string) => Promise<void>,
) {
  const name = `${prefix}-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await (madeBy === 'console' ? createThroughConsole(page, name) : createWithKubectl(page, name));
  try {
    await body(name);
  } finally {
    await removeQuietly(page, name);
  }
}

const DELETE_WORDS = {
  'zh-CN': { button: '删除负载', title: (name: string) => `删除 Deployment default/${name}？` },
  en: { button: 'Delete workload', title: (name: string) => `Delete Deployment default/${name}?` },
};

/**
 * The result view once the pod runs and its two cards are reported (so the counts are final),
 * then its Delete button: the confirmation dialog, found by the name it gives the object.
 */
async function openDeleteConfirmation(page: Page, name: string, lang: 'zh-CN' | 'en' = 'zh-CN') {
  await page.goto(consoleURL(`/workloads/default/${name}`));
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified', {
    timeout: 30_000,
  });
  await page.getByRole('button', { name: DELETE_WORDS[lang].button }).click();
  const confirm = page.getByRole('dialog', { name: DELETE_WORDS[lang].title(name) });
  await expect(confirm).toBeVisible();
  return confirm;
}

/** Where a delete leads: the dashboard, saying what went; and the API server no longer has it. */
async function expectDeleted(page: Page, name: string, notice: string) {
  await expect(page).toHaveURL(/\/allocations$/);
  await expect(page.getByRole('status').filter({ hasText: notice })).toHaveText(notice);
  await expect.poll(() => deploymentInCluster(name)).toBe('');
}

test('deleting a console-made workload: the confirmation names what goes, then it is gone from the cluster', async ({
  page,
}) => {
  await withWorkload(page, 'del', 'console', async (name) => {
    const confirm = await openDeleteConfirmation(page, name);
    await expect(confirm).toContainText(
      `将删除 Deployment default/${name} 及其 1 个 Pod；它们在 2 张卡上占用的 mGPU 份额将被释放。`,
    );
    await confirm.getByRole('button', { name: '删除', exact: true }).click();
    await expectDeleted(page, name, `已删除 Deployment default/${name}。`);
  });
});

test('cancelling the confirmation keeps the workload', async ({ page }) => {
  await withWorkload(page, 'keep', 'console', async (name) => {
    const confirm = await openDeleteConfirmation(page, name);
    await confirm.getByRole('button', { name: '取消' }).click();
    await expect(confirm).toBeHidden();

    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified');
    expect(deploymentInCluster(name)).toBe(`deployment.apps/${name}`);
  });
});

test('an object made directly through the Kubernetes API is deleted only after a second, forced confirmation', async ({
  page,
}) => {
  await withWorkload(page, 'kubectl', 'kubectl', async (name) => {
    const confirm = await openDeleteConfirmation(page, name);
    await confirm.getByRole('button', { name: '删除', exact: true }).click();

    // The console refused (not-managed): a different dialog says why and asks again.
    const force = page.getByRole('dialog', {
      name: `Deployment default/${name} 不是由本控制台创建的`,
    });
    await expect(force).toBeVisible();
    await expect(confirm).toBeHidden();
    await expect(force).toContainText(
      `Deployment“default/${name}”不是由本控制台创建的（没有标签 app.kubernetes.io/managed-by: mgpu-console）；没有做任何更改。`,
    );
    expect(deploymentInCluster(name)).toBe(`deployment.apps/${name}`);

    await force.getByRole('button', { name: '强制删除' }).click();
    await expectDeleted(page, name, `已删除 Deployment default/${name}。`);
  });
});

test('in English the confirmation and the notice are English too', async ({ page }) => {
  await page.goto(consoleURL('/workloads/new'));
  await page.getByRole('button', { name: 'English' }).click();
  await withWorkload(page, 'del-en', 'console', async (name) => {
    const confirm = await openDeleteConfirmation(page, name, 'en');
    await expect(confirm).toContainText('and its 1 pod(s); the mGPU shares they hold on 2 card(s)');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expectDeleted(page, name, `Deployment default/${name} was deleted.`);
  });
});

test('a delete the server refuses shows its message in the dialog, which stays open', async ({
  page,
}) => {
  await withWorkload(page, 'gone', 'console', async (name) => {
    const confirm = await openDeleteConfirmation(page, name);
    // Someone else removes it while the operator reads the confirmation.
    kubectl(cluster.kubeconfig, ['delete', 'deployment', name, '-n', 'default', '--wait=false']);
    await expect.poll(() => deploymentInCluster(name)).toBe('');
    await confirm.getByRole('button', { name: '删除', exact: true }).click();
    const failure = confirm.getByRole('alert');
    await expect(failure).toContainText('删除失败：');
    await expect(failure).toContainText(`"${name}" not found`);
    await expect(confirm).toBeVisible();
  });
});
