import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';

interface NodeView {
  name: string;
  cards: { index: number; holders: { pod: string; computePercent: number }[] }[];
}

/** Where the cluster says the workload's pod sits: `cluster.nodes`, read apart from the page. */
async function cardsHolding(page: Page, workload: string) {
  const response = await page.request.get('/trpc/cluster.nodes');
  const nodes = ((await response.json()) as { result: { data: NodeView[] } }).result.data;
  return nodes.flatMap((node) =>
    node.cards
      .filter((card) => card.holders.some((holder) => holder.pod.startsWith(`${workload}-`)))
      .map((card) => ({ node: node.name, card: card.index })),
  );
}

test('a workload created through the API shows on its cards at 60 %, and goes when deleted — no reload', async ({
  page,
}) => {
  // Scheduling and the node agents' reports take a while on a loaded machine.
  test.setTimeout(120_000);
  const name = `dash-${Date.now().toString(36)}`;
  await page.goto('/allocations');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
  await expect(page.getByTestId('instance-row').first()).toBeVisible();
  // A mark on this document: a reload would start a new one without it.
  await page.evaluate(() => {
    (window as unknown as { notReloaded: boolean }).notReloaded = true;
  });

  await callApi(page, 'workload.create', seedRequest(name));

  // The default view, no clicks: two instance rows, one per card, at 60 % and 4096 MiB.
  const rows = page.getByTestId('instance-row').filter({ hasText: `${name}-` });
  await expect(rows).toHaveCount(2, { timeout: 90_000 });
  for (const row of await rows.all()) {
    await expect(row.getByRole('cell').nth(0)).toHaveText('default');
    await expect(row.getByRole('cell').nth(1)).toHaveText(name);
    await expect(row.getByRole('cell').nth(3)).toHaveText('worker');
    await expect(row.getByTestId('instance-compute')).toHaveText('60%');
    await expect(row).toContainText('4096 MiB (4 GiB)');
  }
  // The rows name the node and cards the scheduler chose.
  await expect.poll(() => cardsHolding(page, name), { timeout: 30_000 }).toHaveLength(2);
  const held = await cardsHolding(page, name);
  const node = held[0]?.node ?? '';
  expect(held.every((slot) => slot.node === node)).toBe(true);
  for (const row of await rows.all()) await expect(row.getByRole('cell').nth(4)).toHaveText(node);
  const shownCards = (await rows.evaluateAll((els) =>
    els.map((el) => Number(el.querySelectorAll('td')[5]?.textContent)),
  )) as number[];
  expect(shownCards.sort()).toEqual(held.map((slot) => slot.card).sort());

  // The node's card grid: the workload on exactly those cards, with its share.
  await rows.first().getByRole('link', { name: node }).click();
  const grid = page.getByTestId('node-view');
  await expect(grid.getByRole('heading', { name: new RegExp(node) })).toBeVisible();
  const tiles = grid.getByTestId('card-tile');
  for (const { card } of held) {
    const holder = tiles
      .and(page.locator(`[data-card="${card}"]`))
      .getByTestId('card-holder')
      .filter({ hasText: `${name}-` });
    await expect(holder).toContainText('60%');
    await expect(holder).toContainText('4096 MiB');
  }
  await expect(grid.getByTestId('card-holder').filter({ hasText: `${name}-` })).toHaveCount(2);
  const instancesBefore = await Promise.all(
    held.map(({ card }) =>
      tiles
        .and(page.locator(`[data-card="${card}"]`))
        .getByTestId('card-instances')
        .textContent(),
    ),
  );

  await callApi(page, 'workload.delete', { namespace: 'default', name });

  await expect(page.getByTestId('instance-row').filter({ hasText: `${name}-` })).toHaveCount(0, {
    timeout: 60_000,
  });
  await expect(grid.getByTestId('card-holder').filter({ hasText: `${name}-` })).toHaveCount(0);
  for (const [index, { card }] of held.entries()) {
    const tile = tiles.and(page.locator(`[data-card="${card}"]`));
    // One instance fewer on each card; a card nobody else holds says it is free.
    const before = Number(/(\d+)\//.exec(instancesBefore[index] ?? '')?.[1]);
    await expect(tile.getByTestId('card-instances')).toContainText(`${before - 1}/16`);
    if (before === 1) await expect(tile.getByTestId('card-free')).toBeVisible();
  }
  // The same document all along: everything above arrived live.
  expect(
    await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
  ).toBe(true);
});

test('filters and the open node live in the URL: a deep link opens the same view', async ({
  page,
}) => {
  await page.goto('/allocations?namespace=team-b&node=l20-nbs-1');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
  const rows = page.getByTestId('instance-row');
  // The default topology: only notebook-alice of team-b runs on l20-nbs-1 (card 1, 25 %).
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('notebook-alice');
  await expect(rows.first().getByTestId('instance-compute')).toHaveText('25%');
  await expect(page.getByTestId('node-view').getByTestId('card-tile')).toHaveCount(4);
  await expect(page.getByLabel('命名空间', { exact: true })).toHaveValue('team-b');

  // Searching narrows the list further and lands in the URL too.
  await page.getByLabel('命名空间', { exact: true }).selectOption('');
  await page.getByLabel('搜索', { exact: true }).fill('train-ddp');
  await expect(rows).toHaveCount(2);
  await expect(page).toHaveURL(/q=train-ddp/);
  await expect(page).not.toHaveURL(/namespace=/);

  await rows.first().getByRole('link', { name: /详情/ }).click();
  const detail = page.getByTestId('instance-detail');
  await expect(detail.getByTestId('field-compute_weight_native_burst')).toContainText('80');
  await expect(detail.getByTestId('field-compute_weight_native_burst')).toContainText(
    '节点 agent 上报',
  );
  await expect(detail).toContainText('调度器注解');
  await page.reload();
  await expect(page.getByTestId('instance-detail')).toContainText('train-ddp-0');
});
