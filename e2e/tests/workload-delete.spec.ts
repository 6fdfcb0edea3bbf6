import { expect, type Page, test } from '@playwright/test';
import { kubectl, type ReachableCluster, startReachableCluster } from '../support/cluster.js';
import { seedRequest } from '../support/seed.js';

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
async function createWithKubectl(page: Page, name: string) {
  const input = encodeURIComponent(JSON.stringify({ request: seedRequest(name), lang: 'en' }));
  const response = await page.request.get(consoleURL(`/trpc/workload.preview?input=${input}`));
  expect(response.ok()).toBe(true);
  const manifest = (await response.json()).result.data.manifest as {
    metadata: { labels: Record<string, string> };
  };
  delete manifest.metadata.labels['app.kubernetes.io/managed-by'];
  kubectl(cluster.kubeconfig, ['create', '-f', '-'], JSON.stringify(manifest));
}

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

/**
 * The result view once the pod runs and its two cards are reported (so the counts are final),
 * then its Delete button: the confirmation dialog, found by the name it gives the object.
 */
async function openDeleteConfirmation(page: Page, name: string, button: string, title: string) {
  await page.goto(consoleURL(`/workloads/default/${name}`));
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified', {
    timeout: 30_000,
  });
  await page.getByRole('button', { name: button }).click();
  const confirm = page.getByRole('dialog', { name: title });
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
  const name = `del-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await createThroughConsole(page, name);
  try {
    const confirm = await openDeleteConfirmation(
      page,
      name,
      '删除负载',
      `删除 Deployment default/${name}？`,
    );
    await expect(confirm).toContainText(
      `将删除 Deployment default/${name} 及其 1 个 Pod；它们在 2 张卡上占用的 mGPU 份额将被释放。`,
    );
    await confirm.getByRole('button', { name: '删除', exact: true }).click();
    await expectDeleted(page, name, `已删除 Deployment default/${name}。`);
  } finally {
    await removeQuietly(page, name);
  }
});

test('cancelling the confirmation keeps the workload', async ({ page }) => {
  const name = `keep-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await createThroughConsole(page, name);
  try {
    const confirm = await openDeleteConfirmation(
      page,
      name,
      '删除负载',
      `删除 Deployment default/${name}？`,
    );
    await confirm.getByRole('button', { name: '取消' }).click();
    await expect(confirm).toBeHidden();

    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified');
    expect(deploymentInCluster(name)).toBe(`deployment.apps/${name}`);
  } finally {
    await removeQuietly(page, name);
  }
});

test('an object made directly through the Kubernetes API is deleted only after a second, forced confirmation', async ({
  page,
}) => {
  const name = `kubectl-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await createWithKubectl(page, name);
  try {
    const confirm = await openDeleteConfirmation(
      page,
      name,
      '删除负载',
      `删除 Deployment default/${name}？`,
    );
    await confirm.getByRole('button', { name: '删除', exact: true }).click();

    // The console refused (not-managed): a different dialog says why and asks again.
    const force = page.getByRole('dialog', {
      name: `Deployment default/${name} 不是由本控制台创建的`,
    });
    await expect(force).toBeVisible();
    await expect(confirm).toBeHidden();
    await expect(force).toContainText(
      `Deployment“default/${name}”不是由本控制台创建的（没有标签 app.kubernetes.io/managed-by: mgpu-console）。`,
    );
    expect(deploymentInCluster(name)).toBe(`deployment.apps/${name}`);

    await force.getByRole('button', { name: '强制删除' }).click();
    await expectDeleted(page, name, `已删除 Deployment default/${name}。`);
  } finally {
    await removeQuietly(page, name);
  }
});

test('in English the confirmation and the notice are English too', async ({ page }) => {
  const name = `del-en-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await page.getByRole('button', { name: 'English' }).click();
  await createThroughConsole(page, name);
  try {
    const confirm = await openDeleteConfirmation(
      page,
      name,
      'Delete workload',
      `Delete Deployment default/${name}?`,
    );
    await expect(confirm).toContainText('and its 1 pod(s); the mGPU shares they hold on 2 card(s)');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await expectDeleted(page, name, `Deployment default/${name} was deleted.`);
  } finally {
    await removeQuietly(page, name);
  }
});

test('a delete the server refuses shows its message in the dialog, which stays open', async ({
  page,
}) => {
  const name = `gone-${Date.now().toString(36)}`;
  await page.goto(consoleURL('/workloads/new'));
  await createThroughConsole(page, name);
  try {
    const confirm = await openDeleteConfirmation(
      page,
      name,
      '删除负载',
      `删除 Deployment default/${name}？`,
    );
    // Someone else removes it while the operator reads the confirmation.
    kubectl(cluster.kubeconfig, ['delete', 'deployment', name, '-n', 'default', '--wait=false']);
    await expect.poll(() => deploymentInCluster(name)).toBe('');
    await confirm.getByRole('button', { name: '删除', exact: true }).click();
    const failure = confirm.getByRole('alert');
    await expect(failure).toContainText('删除失败：');
    await expect(failure).toContainText(`"${name}" not found`);
    await expect(confirm).toBeVisible();
  } finally {
    await removeQuietly(page, name);
  }
});
