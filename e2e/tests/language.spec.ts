import { expect, test } from '@playwright/test';

test('switching to English relabels the form, and the choice survives a reload', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  await expect(page.getByLabel('GPU 算力', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'English' }).click();

  for (const label of [
    'GPU resource type',
    'Multi-card sharing',
    'GPU compute',
    'GPU memory',
    'GPU model',
    'Compute policy',
    'Name',
  ])
    await expect(page.getByLabel(label, { exact: true })).toHaveCount(1);
  await page.getByLabel('Multi-card sharing', { exact: true }).click();
  await expect(page.getByLabel('GPU cards', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create' })).toBeDisabled();
  await page.getByLabel('GPU compute', { exact: true }).fill('abc');
  await expect(page.getByText(/GPU compute of container "main"/)).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');

  await page.reload();
  await expect(page.getByLabel('GPU compute', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: '中文' }).click();
  await expect(page.getByLabel('GPU 算力', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: '创建' })).toBeVisible();
});
