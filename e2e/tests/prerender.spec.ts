import { expect, type Page, test } from '@playwright/test';

/** Console errors and uncaught errors (a failed hydration reports itself through both). */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

test('the form arrives rendered in the HTML of /workloads/new; other pages get the plain shell', async ({
  request,
}) => {
  const form = await request.get('/workloads/new', { headers: { accept: 'text/html' } });
  expect(form.headers()['cache-control']).toBe('no-cache');
  const html = await form.text();
  expect(html).toContain('GPU 算力');
  expect(html).toContain('创建无状态负载');

  const other = await request.get('/allocations', { headers: { accept: 'text/html' } });
  expect(other.headers()['cache-control']).toBe('no-cache');
  expect(await other.text()).not.toContain('GPU 算力');
});

test('the prerendered form comes alive: typing checks and the per-card panel follows', async ({
  page,
}) => {
  const errors = collectErrors(page);
  await page.goto('/workloads/new');
  await page.getByLabel('名称', { exact: true }).fill('prerendered');
  await page.getByLabel('GPU 算力', { exact: true }).fill('0.5');
  await page.getByLabel('GPU 显存', { exact: true }).fill('4');
  await expect(page.getByRole('region', { name: '每卡分配' }).getByText('算力 50%')).toHaveCount(1);
  await page.getByRole('button', { name: '添加容器' }).click();
  await expect(page.getByLabel('GPU 算力')).toHaveCount(2);
  expect(errors).toEqual([]);
});

test('what is typed before the script runs is kept, in the fields and in the request', async ({
  page,
}) => {
  // Hold the app's script back, as a slow network would, while the operator starts typing.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/.*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/workloads/new', { waitUntil: 'commit' });
  const name = page.getByLabel('名称', { exact: true });
  const compute = page.getByLabel('GPU 算力', { exact: true });
  await name.fill('typed-early');
  await compute.fill('0.5');
  await page.getByLabel('GPU 显存', { exact: true }).fill('4');
  release();
  // The panel computes from the form's state: it shows the early typing once the app runs.
  await expect(page.getByRole('region', { name: '每卡分配' }).getByText('算力 50%')).toHaveCount(1);
  // Typing on re-renders the container; nothing typed early is put back to its old value.
  await page.getByLabel('镜像', { exact: true }).fill('nginx:1.27');
  await expect(name).toHaveValue('typed-early');
  await expect(compute).toHaveValue('0.5');
  await page.getByRole('tab', { name: 'YAML' }).click();
  // The manifest names the workload (metadata, selector, labels) after what was typed early.
  await expect(page.getByText('name: typed-early').first()).toBeVisible();
});

test('a remembered English choice renders the form afresh in English, without errors', async ({
  page,
}) => {
  const errors = collectErrors(page);
  await page.addInitScript(() => localStorage.setItem('mgpu.lang', 'en'));
  await page.goto('/workloads/new');
  await expect(page.getByLabel('GPU compute', { exact: true })).toBeVisible();
  await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveCount(0);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(errors).toEqual([]);
});
