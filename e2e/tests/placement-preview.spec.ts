import { expect, test } from '@playwright/test';
import { fillForm, SEED_FORM } from '../support/form.js';

test('the placement preview says which node takes the seed example and why not the others, in the chosen language', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  await fillForm(page, { ...SEED_FORM, name: `why-${Date.now().toString(36)}` });
  const preview = page.getByRole('region', { name: '调度预览' });
  await expect(preview.getByTestId('placement-replica')).toContainText('节点 ');
  await expect(preview.getByText(/为什么不是其他节点（共有 \d+ 个节点可以接收）/)).toBeVisible();
  // The default cluster's L20 pool without a policy label is fixed-share: no multi-card sharing.
  const fixedShare = preview
    .getByTestId('placement-rejection')
    .filter({ hasText: 'NVIDIA-L20/fixed-share' });
  await expect(fixedShare).toHaveText(
    /^\d+ 个 NVIDIA-L20\/fixed-share 节点：算力分配策略 fixed-share 不支持多卡共享/,
  );
  await expect(preview).not.toContainText('does not match');

  await page.getByRole('button', { name: 'English' }).click();
  const english = page.getByRole('region', { name: 'Placement preview' });
  await expect(
    english.getByTestId('placement-rejection').filter({ hasText: 'NVIDIA-L20/fixed-share' }),
  ).toHaveText(
    /^\d+ node\(s\) of NVIDIA-L20\/fixed-share: policy fixed-share does not allow multi-card sharing/,
  );
});
