import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, startConsole, stopConsole } from '../support/bff.js';

test('a console started with --token asks for it once; then queries and live streams work', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-token-'));
  const bff = await startConsole(port, join(stateDir, 'cluster.json'), [
    '--token',
    'e2e-s3cret-console-token',
  ]);
  try {
    await page.goto(`http://127.0.0.1:${port}/allocations`);
    await expect(page.getByRole('heading', { name: '登录控制台' })).toBeVisible();
    const token = page.getByLabel('访问令牌');
    await token.fill('a-guess');
    await page.getByRole('button', { name: '登录' }).click();
    await expect(page.getByRole('alert')).toContainText('令牌不正确');
    await expect(token).toHaveAttribute('aria-invalid', 'true');

    await token.fill('e2e-s3cret-console-token');
    await page.getByRole('button', { name: '登录' }).click();
    // The dashboard's stream (EventSource: no Authorization header) opens with the cookie.
    await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');

    // Signed in for good: a reload goes straight to the page.
    await page.reload();
    await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
    await expect(page.getByRole('heading', { name: '登录控制台' })).toHaveCount(0);
  } finally {
    await stopConsole(bff);
    rmSync(stateDir, { recursive: true, force: true });
  }
});
