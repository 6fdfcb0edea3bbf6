import { expect, type Page, test } from '@playwright/test';
import { fillForm, SEED_FORM } from '../support/form.js';

/**
 * `--auth oidc` in the browser: the console sends the operator to the issuer's login page, the
 * issuer sends them back signed in, and the live dashboard streams with the session cookie as
 * the OIDC user kube-apiserver knows; signing out ends the issuer's session too.
 */
const env = process.env;

test('an operator signs in through the issuer’s login page and lands on the page they opened', async ({
  page,
}) => {
  await page.goto('/allocations');
  await expect(page.getByRole('heading', { name: '登录控制台' })).toBeVisible();
  await page.getByRole('link', { name: '通过身份提供方登录' }).click();

  // The issuer's own page, on its own origin.
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(env.MGPU_TEST_OIDC_ISSUER);
  await page.getByLabel('Username').fill(env.MGPU_TEST_OIDC_LOGIN ?? '');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Wrong username or password');
  await page.getByLabel('Username').fill(env.MGPU_TEST_OIDC_LOGIN ?? '');
  await page.getByLabel('Password').fill(env.MGPU_TEST_OIDC_PASSWORD ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();

  // Back on the console, where the operator was going, and the stream (EventSource) is live.
  await expect(page).toHaveURL(/\/allocations$/);
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
  const session = await page.evaluate(async () => (await fetch('/session')).json());
  expect(session).toMatchObject({
    mode: 'oidc',
    signedIn: true,
    username: env.MGPU_TEST_OIDC_USERNAME,
  });
  // The session cookie is HttpOnly: page script never sees it.
  expect(await page.evaluate(() => document.cookie)).not.toContain('mgpu_console_session');

  // A reload stays signed in.
  await page.reload();
  await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');

  // Signing out ends the issuer's session too: the issuer asks, then sends the browser back to
  // the console's sign-in page, and the next sign-in asks for the password again.
  await page.getByRole('button', { name: '退出登录' }).click();
  await expect(page.getByRole('heading', { name: 'Sign out' })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(env.MGPU_TEST_OIDC_ISSUER);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: '通过身份提供方登录' })).toBeVisible();
  expect(new URL(page.url()).origin).not.toBe(env.MGPU_TEST_OIDC_ISSUER);
  await page.getByRole('link', { name: '通过身份提供方登录' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByLabel('Password')).toBeVisible();
});

/** Through the issuer's login page from `path`, back on it signed in. */
async function signInThroughIssuer(page: Page, path: string) {
  await page.goto(path);
  await page.getByRole('link', { name: '通过身份提供方登录' }).click();
  await page.getByLabel('Username').fill(env.MGPU_TEST_OIDC_LOGIN ?? '');
  await page.getByLabel('Password').fill(env.MGPU_TEST_OIDC_PASSWORD ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`${path}$`));
}

test('an operator who may not list nodes is told whether a replica fits and why not, without node names', async ({
  page,
}) => {
  // The tier's OIDC user has no binding that allows `list nodes`.
  await signInThroughIssuer(page, '/workloads/new');
  await fillForm(page, { ...SEED_FORM, name: `withheld-${Date.now().toString(36)}` });
  const preview = page.getByRole('region', { name: '调度预览' });
  await expect(preview.getByTestId('placement-replica')).toHaveText('副本 1 现在可以调度');
  await expect(preview.getByTestId('placement-nodes-withheld')).toContainText('list nodes');
  await expect(
    preview.getByTestId('placement-rejection').filter({ hasText: 'NVIDIA-L20/fixed-share' }),
  ).toHaveText(/^NVIDIA-L20\/fixed-share 节点：算力分配策略 fixed-share 不支持多卡共享/);
  await expect(preview.getByText('为什么不是其他节点：')).toBeVisible();

  await page.getByRole('button', { name: 'English' }).click();
  const english = page.getByRole('region', { name: 'Placement preview' });
  await expect(english.getByTestId('placement-replica')).toHaveText('Replica 1 fits now');
  await expect(english.getByTestId('placement-nodes-withheld')).toHaveText(
    /need permission to list nodes/,
  );
  await expect(
    english.getByTestId('placement-rejection').filter({ hasText: 'NVIDIA-L20/fixed-share' }),
  ).toHaveText(/^nodes of NVIDIA-L20\/fixed-share: policy fixed-share does not allow/);
});
