import { seedRequest } from '@mgpu/shared';
import { expect, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { kubectl, type ReachableCluster, startReachableCluster } from '../support/cluster.js';

/**
 * Issue 17's rest: /workloads live without reload (workload.watch), the YAML diff before an
 * edit is applied, and the rolling update on the result view afterwards.
 */
test('a new workload appears on /workloads without reload; its edit shows the YAML diff, then the rollout', async ({
  page,
}) => {
  const name = `roll-${Date.now().toString(36)}`;
  await page.goto(`/workloads?q=${name}`);
  await expect(page.getByRole('heading', { name: 'mGPU 工作负载' })).toBeVisible();
  await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);
  await callApi(page, 'workload.create', seedRequest(name));
  try {
    // No reload and no poll: the stream brings the row.
    await expect(page.getByRole('link', { name, exact: true })).toBeVisible({ timeout: 30_000 });

    await page.goto(`/workloads/default/${name}/edit`);
    const compute = page.getByLabel('GPU 算力', { exact: true });
    await expect(compute).toHaveValue('1.2');
    await expect(page.getByText('YAML 与集群中的对象相同。')).toBeVisible();
    await compute.fill('1.6');
    const diff = page.locator('.yaml-diff');
    await expect(diff.locator('[data-change="removed"]').first()).toContainText(
      'vke.volcengine.com/mgpu-core: "120"',
    );
    await expect(diff.locator('[data-change="added"]').first()).toContainText(
      'vke.volcengine.com/mgpu-core: "160"',
    );

    await page.getByRole('button', { name: '应用' }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    const rollout = page.getByTestId('rollout');
    await expect(rollout).toHaveAttribute('data-state', 'complete', { timeout: 90_000 });
    await expect(rollout).toContainText('已更新 1/1');
    await expect(rollout.locator('li[data-revision="new"]')).toHaveCount(1);
    await expect(rollout.locator('li[data-revision="old"]')).toHaveCount(0);
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});

test.describe('an object made with kubectl', () => {
  let cluster: ReachableCluster;
  test.beforeAll(async () => {
    cluster = await startReachableCluster();
  });
  test.afterAll(async () => {
    await cluster?.stop();
  });
  const consoleURL = (path: string) => `${cluster.consoleURL ?? ''}${path}`;

  test('that the form cannot round-trip is read-only, saying why, with its YAML', async ({
    page,
  }) => {
    const name = `unround-${Date.now().toString(36)}`;
    await page.goto(consoleURL('/workloads/new'));
    const input = encodeURIComponent(JSON.stringify({ request: seedRequest(name), lang: 'en' }));
    const response = await page.request.get(consoleURL(`/trpc/workload.preview?input=${input}`));
    expect(response.ok()).toBe(true);
    const manifest = (await response.json()).result.data.manifest;
    // Any model but the A10: a requirement the form (one model, or any) cannot express.
    manifest.spec.template.spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                {
                  key: 'machine.cluster.vke.volcengine.com/gpu-name',
                  operator: 'NotIn',
                  values: ['NVIDIA-A10'],
                },
              ],
            },
          ],
        },
      },
    };
    manifest.spec.template.spec.tolerations = [{ key: 'gpu', operator: 'Exists' }];
    kubectl(cluster.kubeconfig, ['create', '-f', '-'], JSON.stringify(manifest));
    try {
      await page.goto(consoleURL(`/workloads/default/${name}/edit`));
      const notice = page.locator('[data-rule="read-only"]');
      await expect(notice).toContainText('该对象无法在表单中编辑');
      await expect(notice.locator('li[data-reason="model-requirement"]')).toContainText(
        'matchExpressions[0]',
      );
      // No form to apply from; the YAML and the kubectl command instead.
      await expect(page.getByRole('button', { name: '应用' })).toHaveCount(0);
      await expect(page.locator('.yaml-view')).toContainText('vke.volcengine.com/mgpu-core');
      await expect(page.getByText(`kubectl edit deployment/${name} -n default`)).toBeVisible();
      // The fields it keeps are named too, so nothing is dropped unseen.
      await expect(page.locator('li[data-reason="pod-field"]')).toContainText('tolerations');
    } finally {
      kubectl(cluster.kubeconfig, ['delete', 'deployment', name, '-n', 'default', '--wait=false']);
    }
  });
});
