import { expect, test } from '@playwright/test';

test('the form opens with one mGPU container, multi-card sharing off, in zh-CN', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  await expect(page.getByLabel('GPU 资源类型', { exact: true })).toHaveValue('mgpu');
  await expect(page.getByLabel('多卡共享', { exact: true })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveCount(1);
  await expect(page.getByRole('button', { name: '创建' })).toBeDisabled();
});
