import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { startReachableCluster } from '../support/cluster.js';
import { createWithKubectl, deploymentField } from '../support/unmanaged.js';

async function verifiedAt(page: Page, percent: string) {
  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified', {
    timeout: 90_000,
  });
  // The node's raw §6 fields (every weight under its own name, the ids) are one click away.
  await page.getByRole('checkbox', { name: '显示节点上报的全部原始字段' }).check();
  const headers = await page.getByRole('columnheader').allTextContents();
  const nativeBurst = headers.indexOf('compute_weight_native_burst');
  expect(nativeBurst).toBeGreaterThanOrEqual(0);
  const rows = page.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(2, { timeout: 60_000 });
  for (const row of await rows.all())
    await expect(row.getByRole('cell').nth(nativeBurst)).toHaveText(percent, { timeout: 60_000 });
}

test('edit: the live values in the form, the change listed, applied, verified with the new shares', async ({
  page,
}) => {
  const name = `edit-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  await callApi(page, 'workload.create', seedRequest(name));
  try {
    await page.goto(`/workloads/default/${name}`);
    await verifiedAt(page, '60');

    await page.getByRole('link', { name: '编辑' }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}/edit$`));
    await expect(page.getByLabel('名称', { exact: true })).toHaveValue(name);
    await expect(page.getByLabel('工作负载类型', { exact: true })).toHaveValue('Deployment');
    await expect(page.getByLabel('GPU 资源类型', { exact: true })).toHaveValue('mgpu');
    await expect(page.getByLabel('多卡共享', { exact: true })).toHaveAttribute(
      'aria-checked',
      'true',
    );
    const compute = page.getByLabel('GPU 算力', { exact: true });
    await expect(compute).toHaveValue('1.2');
    await expect(page.getByLabel('GPU 显存', { exact: true })).toHaveValue('8');
    await expect(page.getByLabel('GPU 卡数', { exact: true })).toHaveValue('2');
    await expect(page.getByLabel('算力分配策略', { exact: true })).toHaveValue(
      'native-burst-share',
    );
    await expect(page.getByText('与集群中的对象相同，没有要应用的修改。')).toBeVisible();

    // The same live rules as the creation form: 1.5 over 2 cards is 75 %, 1.55 is not a compute.
    await compute.fill('1.55');
    await expect(compute).toHaveAttribute('aria-invalid', 'true');
    await compute.fill('1.6');
    await expect(compute).not.toHaveAttribute('aria-invalid', 'true');
    const change = page.locator('tr[data-path="containers.0.gpu.compute"]');
    // The row is named by the form's label, not by the request path it is keyed by.
    await expect(change.getByRole('rowheader')).toHaveText('GPU 算力');
    await expect(change.getByRole('cell').nth(0)).toHaveText('1.2');
    await expect(change.getByRole('cell').nth(1)).toHaveText('1.6');

    const apply = page.getByRole('button', { name: '应用' });
    await expect(apply).toBeEnabled();
    await apply.click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    await verifiedAt(page, '80');
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});

test('edit: someone else changed it meanwhile — conflict, the edits stay, reload brings the live values', async ({
  page,
}) => {
  const name = `conflict-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  await callApi(page, 'workload.create', seedRequest(name));
  try {
    await page.goto(`/workloads/default/${name}/edit`);
    const compute = page.getByLabel('GPU 算力', { exact: true });
    await expect(compute).toHaveValue('1.2');
    // Another operator scales it while this form is open: the spec moved on.
    await callApi(page, 'workload.scale', { namespace: 'default', name, replicas: 0 });

    await compute.fill('1.6');
    await page.getByRole('button', { name: '应用' }).click();
    const alert = page.locator('[data-rule="conflict"]');
    await expect(alert).toBeVisible();
    await expect(compute).toHaveValue('1.6');

    await alert.getByRole('button').click();
    await expect(compute).toHaveValue('1.2');
    await expect(page.getByLabel('副本数', { exact: true })).toHaveValue('0');
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});

test('/workloads: the workload listed live with kind, shares and verification; a deep link filters; scale from the row', async ({
  page,
}) => {
  const name = `list-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  await callApi(page, 'workload.create', seedRequest(name));
  try {
    await page.goto(`/workloads?q=${name}`);
    await expect(page.getByLabel('搜索名称', { exact: true })).toHaveValue(name);
    const row = page.getByRole('row').filter({ hasText: name });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole('cell', { name: 'Deployment', exact: true })).toBeVisible();
    await expect(row.getByText('worker：2 卡 × 算力 60% · 显存 4096 MiB')).toBeVisible();
    await expect(row.locator('[data-verification="verified"]')).toBeVisible({ timeout: 60_000 });
    await expect(row.getByText('1/1')).toBeVisible();

    await row.getByLabel(`${name} 的副本数`).fill('2');
    await row.getByRole('button', { name: '调整副本数' }).click();
    await expect(row.getByText('2/2')).toBeVisible({ timeout: 60_000 });
    await row.getByRole('link', { name }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});

test('edit: a workload made with kubectl says it is not the console’s, and Apply asks before sending force', async ({
  page,
}) => {
  const cluster = await startReachableCluster();
  const consoleURL = (path: string) => `${cluster.consoleURL ?? ''}${path}`;
  const name = `kubectl-${Date.now().toString(36)}`;
  const computeInCluster = () =>
    deploymentField(
      cluster,
      name,
      '{.spec.template.spec.containers[0].resources.limits.vke\\.volcengine\\.com/mgpu-core}',
    );
  try {
    await page.goto(consoleURL('/workloads/new'));
    // The console's own manifest (no pods), made with kubectl without the managed-by label.
    await createWithKubectl(page, cluster, seedRequest(name, { replicas: 0 }));

    await page.goto(consoleURL(`/workloads/default/${name}/edit`));
    await expect(
      page.getByRole('alert').filter({ hasText: '该工作负载不是由本控制台管理的' }),
    ).toBeVisible();
    await page.getByLabel('GPU 算力', { exact: true }).fill('1.6');
    const apply = page.getByRole('button', { name: '应用', exact: true });

    // Cancel sends nothing: the object keeps its compute.
    await apply.click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText(`default/${name}`);
    await dialog.getByRole('button', { name: /^取\s*消$/ }).click();
    await expect(dialog).toBeHidden();
    expect(computeInCluster()).toBe('120');

    await apply.click();
    await page.getByRole('dialog').getByRole('button', { name: '确认应用' }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    expect(computeInCluster()).toBe('160');
  } finally {
    await page.request.post(consoleURL('/trpc/workload.delete'), {
      data: { namespace: 'default', name, force: true },
      headers: { Origin: new URL(page.url()).origin },
    });
    await cluster.stop();
  }
});

test('scale on /workloads: a workload made with kubectl is scaled only after a confirmation', async ({
  page,
}) => {
  const cluster = await startReachableCluster();
  const consoleURL = (path: string) => `${cluster.consoleURL ?? ''}${path}`;
  const name = `kubectl-scale-${Date.now().toString(36)}`;
  const replicasInCluster = () => deploymentField(cluster, name, '{.spec.replicas}');
  try {
    await page.goto(consoleURL('/workloads/new'));
    await createWithKubectl(page, cluster, seedRequest(name, { replicas: 0 }));

    await page.goto(consoleURL('/workloads'));
    const box = page.getByLabel(`${name} 的副本数`);
    await box.fill('1');
    const row = page.getByRole('row').filter({ has: box });
    // Cancel sends nothing.
    await row.getByRole('button', { name: '调整副本数' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog).toContainText(`default/${name}`);
    await dialog.getByRole('button', { name: /^取\s*消$/ }).click();
    await expect(dialog).toBeHidden();
    expect(replicasInCluster()).toBe('0');

    await row.getByRole('button', { name: '调整副本数' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '确认调整' }).click();
    await expect.poll(replicasInCluster).toBe('1');
  } finally {
    await page.request.post(consoleURL('/trpc/workload.delete'), {
      data: { namespace: 'default', name, force: true },
      headers: { Origin: new URL(page.url()).origin },
    });
    await cluster.stop();
  }
});
