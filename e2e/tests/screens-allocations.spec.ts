import { expect, type Locator, type Page, test } from '@playwright/test';
import {
  checkScreens,
  horizontalOverflow,
  LAPTOP,
  type Lang,
  NARROWEST,
  PHONE,
} from '../support/screens.js';

/** Issue 29's widths for the dashboard: the narrowest supported, an on-call phone, a laptop. */
const SIZES = [NARROWEST, PHONE, LAPTOP] as const;
/** The default topology's node with four mGPU cards, some of them held. */
const NODE = 'l20-nbs-1';

const WORDS: Record<Lang, { close: string; namespace: string }> = {
  'zh-CN': { close: '关闭', namespace: '命名空间' },
  en: { close: 'Close', namespace: 'Namespace' },
};

/** The figures a sentence carries, in order ("3 of 12 GPU nodes, …" → [3, 12, …]). */
const figuresOf = async (locator: Locator): Promise<number[]> =>
  ((await locator.textContent()) ?? '').match(/\d+/g)?.map(Number) ?? [];

/** The element's whole box lies inside the viewport: seen without scrolling. */
async function expectInViewport(page: Page, locator: Locator): Promise<void> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  expect(box, 'the panel heading is drawn').not.toBeNull();
  if (!box || !viewport) return;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

test('/allocations on a phone and a laptop in both languages: no sideways scroll and no axe violation with a node, a card and an instance open; the panel opens where the operator is; counts follow the filters; card bars carry their figures', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.goto('/allocations');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
  const nodeRow = page.locator(`[data-testid="node-row"][data-node="${NODE}"]`);
  await expect(nodeRow).toBeVisible();
  const nodeLink = nodeRow.getByRole('link', { name: NODE });
  const nodeView = page.getByTestId('node-view');
  const nodeHeading = nodeView.getByRole('heading', { level: 2 });
  const detail = page.getByTestId('instance-detail');

  // Card bars carry their figures: every card of every node row says its compute used.
  const minis = page.getByTestId('node-row').getByTestId('card-mini');
  await expect(minis.first()).toBeVisible();
  for (const text of await minis.allTextContents()) expect(text).toMatch(/\d+(\.\d+)?%$/);

  // Counts follow the filters: one team's instances and the nodes holding them.
  const totals = page.getByTestId('alloc-totals');
  const [allNodes = 0, allInstances = 0] = await figuresOf(totals);
  const namespace = page.getByLabel(WORDS['zh-CN'].namespace, { exact: true });
  await namespace.selectOption('team-b');
  const rows = page.getByTestId('instance-row');
  await expect(rows.first()).toContainText('team-b');
  await expect.poll(async () => (await figuresOf(totals)).length).toBe(4);
  const [nodes, nodesOf, instances, instancesOf] = await figuresOf(totals);
  expect([nodesOf, instancesOf]).toEqual([allNodes, allInstances]);
  expect(instances).toBeLessThan(allInstances);
  await expect(rows).toHaveCount(instances ?? -1);
  await expect(page.getByTestId('node-row')).toHaveCount(nodes ?? -1);
  expect(await figuresOf(page.getByTestId('node-count'))).toEqual([nodes, allNodes]);
  await namespace.selectOption('');
  await expect.poll(() => figuresOf(totals)).toEqual([allNodes, allInstances]);

  for (const lang of ['zh-CN', 'en'] as const) {
    const words = WORDS[lang];
    if (lang === 'en') {
      await page.setViewportSize(LAPTOP);
      await page.getByRole('button', { name: 'English' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Allocations' })).toBeVisible();
    }
    await checkScreens(page, () => expect(nodeRow).toBeVisible(), SIZES);

    // A node opens where the operator is: down at the node list, the panel's heading is in view
    // without scrolling (a drawer on the phone, beside the lists on the laptop), focus in it.
    await page.setViewportSize(lang === 'zh-CN' ? PHONE : LAPTOP);
    await nodeLink.click();
    await expect(nodeHeading).toBeFocused();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await expectInViewport(page, nodeHeading);
    await checkScreens(page, () => expect(nodeView.getByTestId('card-tile')).toHaveCount(4), SIZES);

    // A card's holder opens its instance, in the same panel.
    await page.setViewportSize(PHONE);
    const holder = nodeView.getByTestId('card-holder').first().getByRole('link');
    await holder.click();
    await expect(detail.getByRole('heading', { level: 2 })).toBeFocused();
    await checkScreens(
      page,
      () => expect(detail.getByTestId('field-vmem_limit')).toBeVisible(),
      SIZES,
    );

    // Closing gives focus back to what opened it: the holder, then the node's row.
    await detail.getByRole('link', { name: words.close }).click();
    await expect(detail).toHaveCount(0);
    await expect(holder).toBeFocused();
    if (lang === 'zh-CN') await nodeView.getByRole('link', { name: words.close }).click();
    else await page.keyboard.press('Escape');
    await expect(nodeView).toHaveCount(0);
    await expect(nodeLink).toBeFocused();
    expect(await horizontalOverflow(page)).toBe(0);
  }
});
