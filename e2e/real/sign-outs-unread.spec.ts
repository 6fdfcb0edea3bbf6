import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testTier } from '@mgpu/shared/test-tier';
import { expect, test } from '@playwright/test';
import { freePort, startConsoleOn, stopConsole } from '../support/bff.js';

/**
 * A console that cannot read its Secret of sign-outs (its account's Role is in `default` only,
 * tools/kube/rbac; this one keeps its objects in kube-public) cannot judge a session cookie, and
 * says so with 503. The page must wait and ask again, never show the sign-in form once more:
 * signing in again would only make another cookie answered the same way (issue 25).
 */
const tier = testTier();
const kubeconfig = tier.kind === 'real' ? tier.kubeconfig : '';
const TOKEN = 'sign-outs-unread-console-token';

test('a signed-in operator is told the console is starting, and the page asks again instead of asking for a sign-in', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-sign-outs-'));
  const keyFile = join(dir, 'session.key');
  writeFileSync(keyFile, `${'s'.repeat(48)}\n`);
  const port = await freePort();
  const bff = await startConsoleOn(
    port,
    kubeconfig,
    [
      '--context',
      'mgpu-real-console',
      '--console-namespace',
      'kube-public',
      '--token',
      TOKEN,
      '--session-key-file',
      keyFile,
    ],
    'listening',
  );
  let notReadyAnswers = 0;
  page.on('response', (response) => {
    const request = response.request();
    if (request.method() === 'GET' && new URL(response.url()).pathname === '/session')
      if (response.status() === 503) notReadyAnswers++;
  });
  try {
    await page.goto(`http://127.0.0.1:${port}/allocations`);
    // No cookie yet: that much the console can say without the sign-outs.
    const signInTitle = page.getByRole('heading', { name: '登录控制台' });
    await expect(signInTitle).toBeVisible();
    await page.getByLabel('访问令牌').fill(TOKEN);
    await page.getByRole('button', { name: '登录' }).click();

    const starting = page.getByRole('heading', { name: '控制台正在启动' });
    await expect(starting).toBeVisible();
    await expect(page.getByText('本页会自动重试')).toBeVisible();
    // Asked again by itself (each answer still 503), and the sign-in form never comes back.
    await expect.poll(() => notReadyAnswers, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await expect(signInTitle).toHaveCount(0);
    await expect(starting).toBeVisible();

    // A reload with the cookie waits the same way.
    await page.reload();
    await expect(starting).toBeVisible();
    await expect(signInTitle).toHaveCount(0);
  } finally {
    await stopConsole(bff);
    rmSync(dir, { recursive: true, force: true });
  }
});
