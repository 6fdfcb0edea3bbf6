import { expect, test } from '@playwright/test';
import { fillForm } from '../support/form.js';

test('the server refuses a name already taken, and says so on 名称', async ({ page }) => {
  const typed = {
    name: `dup-${Date.now().toString(36)}`,
    policy: 'native-burst-share',
    multiCard: true,
    cards: '2',
    compute: '0.2',
    memoryGiB: '2',
  };
  await page.goto('/workloads/new');
  await fillForm(page, typed);
  await page.getByRole('button', { name: '创建' }).click();
  await expect(page).toHaveURL(new RegExp(`/workloads/default/${typed.name}$`));

  await page.goto('/workloads/new');
  await fillForm(page, typed);
  await page.getByRole('button', { name: '创建' }).click();
  const name = page.getByLabel('名称', { exact: true });
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator(`[id="${await name.getAttribute('aria-describedby')}"]`)).toContainText(
    typed.name,
  );
  await expect(page.getByRole('button', { name: '创建' })).toBeDisabled();
  await expect(page).toHaveURL(/\/workloads\/new$/);

  // Another name clears the refusal.
  await name.fill(`${typed.name}-b`);
  await expect(name).toHaveAttribute('aria-invalid', 'false');
  await expect(page.getByRole('button', { name: '创建' })).toBeEnabled();
});
