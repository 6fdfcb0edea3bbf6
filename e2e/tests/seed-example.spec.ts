import { expect, test } from '@playwright/test';
import { fillForm } from '../support/form.js';

test('the seed example: 1.2 compute on 2 cards with 8 GiB runs at 60 / 60 on two cards', async ({
  page,
}) => {
  // Scheduling, the node agents' reports and the informers take a while on a loaded machine.
  test.setTimeout(120_000);
  const name = `seed-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  // First an invalid request: 1 card's worth over 3 cards is 33.33…% per card.
  await fillForm(page, {
    name,
    policy: 'native-burst-share',
    multiCard: true,
    cards: '3',
    compute: '1',
    memoryGiB: '8',
  });
  const compute = page.getByLabel('GPU 算力', { exact: true });
  await expect(compute).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('button', { name: '创建' })).toBeDisabled();

  await fillForm(page, {
    name,
    policy: 'native-burst-share',
    multiCard: true,
    cards: '2',
    compute: '1.2',
    memoryGiB: '8',
  });
  await expect(compute).toHaveAttribute('aria-invalid', 'false');
  const panel = page.getByRole('region', { name: '每卡分配' });
  await expect(panel.getByText('算力 60%')).toHaveCount(2);
  await expect(panel.getByText('显存 4096 MiB')).toHaveCount(2);
  await expect(page.getByRole('region', { name: '调度预览' }).getByText(/节点 /)).toBeVisible();

  const create = page.getByRole('button', { name: '创建' });
  await expect(create).toBeEnabled();
  await create.click();
  await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));

  await expect(page.getByTestId('outcome')).toHaveAttribute('data-outcome', 'verified', {
    timeout: 90_000,
  });
  // The node's raw §6 fields (every weight under its own name, the ids) are one click away.
  await page.getByRole('checkbox', { name: '显示节点上报的全部原始字段' }).check();
  const headers = await page.getByRole('columnheader').allTextContents();
  const nativeBurst = headers.indexOf('compute_weight_native_burst');
  const online = headers.indexOf('compute_weight_online');
  const device = headers.indexOf('device_id');
  // A missing column is -1, and nth(-1) is the last cell (container_id): each must be found.
  expect(nativeBurst).toBeGreaterThanOrEqual(0);
  expect(online).toBeGreaterThanOrEqual(0);
  expect(device).toBeGreaterThanOrEqual(0);
  const rows = page.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(2);
  const devices = new Set<string>();
  for (const row of await rows.all()) {
    const cells = row.getByRole('cell');
    await expect(cells.nth(nativeBurst)).toHaveText('60');
    await expect(cells.nth(online)).toHaveText('60');
    // The device_id column's own cell: a card the node agent reported, not a placeholder.
    const deviceId = (await cells.nth(device).textContent())?.trim() ?? '';
    expect(deviceId).toMatch(/\w/);
    devices.add(deviceId);
    await expect(row.getByText('一致')).toBeVisible();
  }
  expect(devices.size).toBe(2);
});

test('a new form: one mGPU container, multi-card sharing off, no spellcheck, zh-CN, 创建 disabled with a reason', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  await expect(page.getByLabel('GPU 资源类型', { exact: true })).toHaveValue('mgpu');
  await expect(page.getByLabel('多卡共享', { exact: true })).toHaveAttribute(
    'aria-checked',
    'false',
  );
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveCount(1);
  // Names, images and numbers are not words: no spellcheck squiggles under nginx:1.27.
  for (const label of ['名称', '镜像', 'GPU 算力', 'GPU 显存'])
    await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('spellcheck', 'false');
  const create = page.getByRole('button', { name: '创建' });
  await expect(create).toBeDisabled();
  await expect(create).toHaveAccessibleDescription(/无法创建/);
});
