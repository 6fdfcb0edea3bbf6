import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { fillForm } from '../support/form.js';

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

test('the form has no serious or critical axe violations, with and without errors', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  await expect(page.getByLabel('GPU 算力', { exact: true })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await fillForm(page, {
    name: 'axe',
    policy: 'native-burst-share',
    multiCard: true,
    cards: '3',
    compute: '1',
    memoryGiB: '8',
  });
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.getByRole('textbox', { name: 'YAML 清单' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('the allocation dashboard has no serious or critical axe violations, with a node and an instance open', async ({
  page,
}) => {
  await page.goto('/allocations');
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
  await expect(page.getByTestId('instance-row').first()).toBeVisible();
  await expect(page.getByTestId('node-row').first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.goto('/allocations?node=l20-nbs-1&instance=team-a%2Ftrain-ddp-0%2Ftrainer%2F0');
  await expect(page.getByTestId('card-tile')).toHaveCount(4);
  await expect(page.getByTestId('instance-detail')).toContainText('compute_weight_native_burst');
  expect(await seriousViolations(page)).toEqual([]);
});
