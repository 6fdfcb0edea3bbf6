import { expect, type Page, test } from '@playwright/test';

/** Creates a workload through the BFF's HTTP API (spec §7), as a script would. */
async function create(page: Page, request: unknown) {
  const origin = new URL(page.url()).origin;
  const response = await page.request.post('/trpc/workload.create', {
    data: request,
    headers: { Origin: origin },
  });
  expect(response.ok()).toBe(true);
}

async function remove(page: Page, name: string) {
  const origin = new URL(page.url()).origin;
  await page.request.post('/trpc/workload.delete', {
    data: { namespace: 'default', name },
    headers: { Origin: origin },
  });
}

test('a replica no node takes: the headline is in the operator language, the scheduler text a detail; coming back shows the last state at once', async ({
  page,
}) => {
  const name = `stuck-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  // The A10 pool has two one-card nodes, one of them 16 GiB taken: two 20 GiB slices cannot both
  // fit now. (Three could never fit, even on empty cards: replicas-exceed-cluster refuses that.)
  await create(page, {
    name,
    replicas: 2,
    computePolicy: 'fixed-share',
    containers: [
      {
        name: 'main',
        image: 'nginx:1.27',
        gpu: { type: 'mgpu', compute: '0.5', memoryGiB: '20', model: 'NVIDIA-A10' },
      },
    ],
  });
  try {
    await page.goto(`/workloads/default/${name}`);
    const scheduled = page.getByTestId('stage-scheduled');
    // A replica no node takes waits: pending, never failed (issue 27).
    await expect(scheduled.getByTestId('unschedulable').first()).toBeVisible({ timeout: 30_000 });
    await expect(scheduled).toHaveAttribute('data-state', 'pending');
    const stuck = scheduled.getByTestId('unschedulable').first();
    await expect(stuck.getByText(new RegExp(`^${name}-.+ 无法调度$`))).toBeVisible();
    // The scheduler's own English stays available, folded, under a translated summary.
    await expect(stuck.getByText(/nodes are available/)).toBeHidden();
    await stuck.getByText('调度器原文').click();
    await expect(stuck.getByText(/nodes are available/)).toBeVisible();
    const state = page.getByTestId('outcome').getByTestId('workload-state');
    await expect(state).toHaveAttribute('data-state', 'pending');
    await expect(page.getByTestId('outcome')).not.toContainText('失败');

    // Away and back: with the live stream refused, the last state comes from the query cache.
    await page.getByRole('link', { name: '再创建一个' }).click();
    await expect(page.getByLabel('GPU 算力', { exact: true })).toBeVisible();
    await page.route('**/trpc/workload.progress**', (route) => route.abort());
    await page.goBack();
    await expect(state).toHaveAttribute('data-state', 'pending');
    await expect(page.getByTestId('stage-scheduled')).toHaveAttribute('data-state', 'pending');
  } finally {
    await remove(page, name);
  }
});
