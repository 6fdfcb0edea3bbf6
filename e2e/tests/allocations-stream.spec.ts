import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, startConsole, stopConsole } from '../support/bff.js';

test('the stale banner shows while the console is down and goes when it is back', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-stream-'));
  const stateFile = join(stateDir, 'cluster.json');
  let bff = await startConsole(port, stateFile);
  try {
    await page.goto(`http://127.0.0.1:${port}/allocations`);
    const status = page.getByTestId('stream-status');
    const banner = page.getByTestId('stream-banner');
    await expect(status).toHaveAttribute('data-status', 'live');
    await expect(page.getByTestId('instance-row').first()).toBeVisible();
    await expect(banner).toHaveCount(0);

    await stopConsole(bff);
    await expect(banner).toBeVisible({ timeout: 30_000 });
    await expect(banner).toHaveAttribute('role', 'alert');
    // What was shown stays on screen, marked stale, rather than going blank.
    await expect(page.getByTestId('instance-row').first()).toBeVisible();

    bff = await startConsole(port, stateFile);
    await expect(banner).toHaveCount(0, { timeout: 60_000 });
    await expect(status).toHaveAttribute('data-status', 'live');
    await expect(page.getByTestId('instance-row').first()).toBeVisible();
  } finally {
    await stopConsole(bff);
    rmSync(stateDir, { recursive: true, force: true });
  }
});
