import { seedRequest } from '@mgpu/shared';
import { testTier } from '@mgpu/shared/test-tier';
import { expect, test } from '@playwright/test';
import { kubectl } from '../support/cluster.js';

/**
 * A team's own instances on the result page (review S9/W5), as an operator who may not `list
 * nodes` sees them under `--auth oidc`: the used column answers (no longer refused), and where
 * the figure would be the card's — every holder's, other teams' too — it is "—" saying it needs
 * permission to list nodes, in both languages. The tier's OIDC user gets `edit` in a namespace
 * of this test's own, nothing cluster-wide.
 */
const env = process.env;
const tier = testTier();
const kubeconfig = tier.kind === 'real' ? tier.kubeconfig : '';
const suffix = Date.now().toString(36);
const namespace = `usage-withheld-${suffix}`;
const name = `withheld-${suffix}`;

test.beforeAll(() => {
  kubectl(kubeconfig, ['create', 'namespace', namespace]);
  kubectl(kubeconfig, [
    'create',
    'rolebinding',
    'oidc-edit',
    '--clusterrole=edit',
    `--user=${env.MGPU_TEST_OIDC_USERNAME ?? ''}`,
    '-n',
    namespace,
  ]);
});

test.afterAll(() => {
  kubectl(kubeconfig, ['delete', 'namespace', namespace, '--wait=false']);
});

test('an operator who may not list nodes sees their instances’ used column, the card’s figure withheld with why', async ({
  page,
}) => {
  const path = `/workloads/${namespace}/${name}`;
  await page.goto(path);
  await page.getByRole('link', { name: '通过身份提供方登录' }).click();
  await page.getByLabel('Username').fill(env.MGPU_TEST_OIDC_LOGIN ?? '');
  await page.getByLabel('Password').fill(env.MGPU_TEST_OIDC_PASSWORD ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`${path}$`));

  // Created as that operator, with their session, in their namespace.
  const origin = new URL(page.url()).origin;
  const created = await page.request.post('/trpc/workload.create', {
    data: seedRequest(name, { namespace }),
    headers: { Origin: origin },
  });
  expect(created.ok()).toBe(true);

  await page.reload();
  const used = page.getByTestId('instance-used');
  // The seed's 2 cards: one instance on each, each cell answered.
  await expect(used).toHaveCount(2, { timeout: 60_000 });
  for (const cell of await used.all()) {
    await expect(cell).toHaveAttribute('data-reason', 'needs-list-nodes');
    await expect(cell).toContainText('列出节点（list nodes）');
  }
  await page.getByRole('button', { name: 'English' }).click();
  for (const cell of await used.all())
    await expect(cell).toContainText('needs permission to list nodes');
});
