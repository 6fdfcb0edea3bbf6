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
