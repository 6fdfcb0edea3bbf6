import { rankRejections, seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';

/** Valid on its own, but more native-burst-share compute on 8 cards than any node has free. */
function impossibleRequest(name: string) {
  const request = seedRequest(name);
  return {
    ...request,
    containers: request.containers.map((container) => ({
      ...container,
      gpu: { ...container.gpu, compute: '7.2', memoryGiB: '400', cards: 8 },
    })),
  };
}

interface PendingPod {
  pod: string;
  workload: string | null;
  rejections: (Parameters<typeof rankRejections>[0][number] & { message: string })[];
}

async function pendingOf(page: Page, workload: string): Promise<PendingPod | undefined> {
  const response = await page.request.get('/trpc/cluster.pending');
  const pods = ((await response.json()) as { result: { data: PendingPod[] } }).result.data;
  return pods.find((pod) => pod.workload === workload && pod.rejections.length > 0);
}

test('a request no node can take shows under pending pods on /allocations, grouped, with its reasons in zh-CN', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const name = `nofit-${Date.now().toString(36)}`;
  await page.goto('/allocations');
  await expect(page.getByRole('heading', { name: '等待调度的 Pod' })).toBeVisible();

  await callApi(page, 'workload.create', impossibleRequest(name));
  await expect.poll(async () => (await pendingOf(page, name)) !== undefined).toBe(true);
  const pending = (await pendingOf(page, name)) as PendingPod;

  // No reload: the live list brings it, with the count in the header — one entry per workload
  // and request shape, its waiting pods listed by name under it.
  const item = page.getByTestId('pending-group').filter({
    has: page.locator(`[data-testid="pending-pod"][data-pod="default/${pending.pod}"]`),
  });
  await expect(item).toBeVisible();
  await expect(item.getByTestId('pending-group-count')).toContainText('1 个 Pod 在等待');
  await expect(page.getByTestId('pending-count')).toContainText('个 Pod 等待调度');
  await expect(item.getByTestId('pending-waited')).toContainText('已等待');
  await expect(item.getByRole('link', { name: `负载 ${name}` })).toHaveAttribute(
    'href',
    `/workloads/default/${name}`,
  );
  // One line per node group it could use, worded in zh-CN from the codes, not the scheduler's
  // English; the groups its own choices rule out (another model, policy) fold into one line.
  const { ranked, excluded } = rankRejections(pending.rejections);
  const reasons = item.getByTestId('pending-reason');
  await expect(reasons).toHaveCount(ranked.length);
  for (const rejection of ranked) {
    if (rejection.group === 'pod') continue;
    await expect(item.getByTestId('pending-reasons')).toContainText(`个 ${rejection.group} 节点：`);
  }
  // The default cluster has node groups of other models and policies than the request's.
  expect(excluded).toBeDefined();
  const folded = item.getByTestId('rejections-excluded');
  await expect(folded).toContainText(`另有 ${excluded?.groups.length} 组节点`);
  await expect(folded).toContainText('不在考虑之内');
  await expect(item.getByTestId('pending-reasons')).not.toContainText(
    pending.rejections[0]?.message ?? '',
  );

  await callApi(page, 'workload.delete', { namespace: 'default', name });
  await expect(item).toHaveCount(0);
});

test('the pool history is drawn as charts and says where it starts', async ({ page }) => {
  await page.goto('/allocations');
  await expect(page.getByRole('heading', { name: '资源池历史' })).toBeVisible();
  await expect(page.getByTestId('history-since')).toContainText('历史从');
  await expect(page.getByRole('figure', { name: '算力已分配（占资源池的 %）' })).toBeVisible();
  await expect(page.locator('.alloc-history canvas').first()).toBeVisible();
});
