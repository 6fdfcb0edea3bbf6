import { expect, test } from '@playwright/test';
import { fillForm } from '../support/form.js';

test('YAML edits flow into the form; invalid YAML never wipes it', async ({ page }) => {
  await page.goto('/workloads/new');
  await fillForm(page, {
    name: 'yaml-trip',
    policy: 'native-burst-share',
    multiCard: true,
    cards: '2',
    compute: '1.2',
    memoryGiB: '8',
  });

  await page.getByRole('tab', { name: 'kubectl' }).click();
  const command = (await page.getByTestId('kubectl-command').textContent()) ?? '';
  expect(command).toContain("kubectl apply -f - <<'EOF'");
  expect(command).toContain('vke.volcengine.com/multiple-mgpu-main: "2"');
  expect(command).toContain('vke.volcengine.com/mgpu-core: "120"');
  const manifest = command.replace(/^kubectl apply -f - <<'EOF'\n/, '').replace(/EOF\n?$/, '');

  await page.getByRole('tab', { name: 'YAML' }).click();
  const editor = page.getByRole('textbox', { name: 'YAML 清单' });
  await expect(editor).toContainText('mgpu-core');
  // 1.6 cards over 4 cards: 40 % and 3 GiB (3072 MiB) per card.
  const edited = manifest
    .replace('multiple-mgpu-main: "2"', 'multiple-mgpu-main: "4"')
    .replaceAll('mgpu-core: "120"', 'mgpu-core: "160"')
    .replaceAll('mgpu-memory: "8192"', 'mgpu-memory: "12288"');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(edited);
  await expect(page.getByText('已同步到表单。')).toBeVisible();

  await page.getByRole('tab', { name: '表单' }).click();
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveValue('1.6');
  await expect(page.getByLabel('GPU 卡数', { exact: true })).toHaveValue('4');
  await expect(page.getByLabel('GPU 显存', { exact: true })).toHaveValue('12');
  await expect(page.getByRole('region', { name: '每卡分配' }).getByText('算力 40%')).toHaveCount(4);

  await page.getByRole('tab', { name: 'YAML' }).click();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText('spec: [this is not yaml');
  await expect(page.getByRole('alert').filter({ hasText: 'YAML 无法解析' })).toBeVisible();

  await page.getByRole('tab', { name: '表单' }).click();
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveValue('1.6');
  await expect(page.getByLabel('名称', { exact: true })).toHaveValue('yaml-trip');
});
