import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { checkScreens, LANGS, LAPTOP, type Lang, NARROWEST, PHONE } from '../support/screens.js';

/**
 * The workload pages on an on-call phone (360, 390 px) and a laptop, in both languages (issue 29):
 * the form, the form with its errors, the list, a workload's result page and its edit page never
 * scroll sideways and axe finds nothing at any impact. One page load per route; the language is
 * switched with the console's own buttons and the window resized within it.
 */
const SIZES = [LAPTOP, PHONE, NARROWEST] as const;

/** The language switch is in the bar at a laptop's width (a phone folds it into the menu). */
async function switchTo(page: Page, lang: Lang) {
  await page.setViewportSize(LAPTOP);
  await page.getByRole('button', { name: lang === 'en' ? 'English' : '中文' }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

/** Every language at every size; `ready` confirms the state is on screen after each resize. */
async function checkEveryScreen(page: Page, ready: () => Promise<void>) {
  for (const lang of LANGS) {
    await switchTo(page, lang);
    await checkScreens(page, ready, SIZES);
  }
}

/** The inputs by their request path (the form's ids), the same in every language. */
const field = (page: Page, path: string) => page.locator(`#field-${path.replaceAll('.', '-')}`);

test('the creation form, also with its errors, fits every screen in both languages', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  const compute = field(page, 'containers.0.gpu.compute');
  await checkEveryScreen(page, () => expect(compute).toBeVisible());

  // An invalid compute and name: each error under its input, the submit row saying why.
  await field(page, 'name').fill('Not_A_Name');
  await compute.fill('1.55');
  await expect(compute).toHaveAttribute('aria-invalid', 'true');
  await checkEveryScreen(page, async () => {
    await expect(compute).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#field-containers-0-gpu-compute-error')).toBeVisible();
  });
});

test('the list, a result page and its edit page fit every screen in both languages', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const name = `screens-${Date.now().toString(36)}`;
  await page.goto('/workloads');
  await callApi(page, 'workload.create', seedRequest(name));
  try {
    // The list: a table on a laptop, each workload a card under its name on a phone.
    await page.goto('/workloads');
    const link = page.getByRole('link', { name, exact: true });
    await checkEveryScreen(page, () => expect(link).toBeVisible());
    await page.setViewportSize(PHONE);
    await expect(page.getByRole('heading', { name, exact: true })).toBeVisible();
    await expect(page.getByRole('row').filter({ has: link })).toHaveCount(0);
    // A figure and its unit stay on one line in a phone's card ("60%", "4096 MiB").
    const brokenFigures = await page
      .locator('.figure-text')
      .evaluateAll((figures) => figures.filter((span) => span.getClientRects().length > 1).length);
    expect(brokenFigures).toBe(0);
    await page.setViewportSize(LAPTOP);
    await expect(page.getByRole('row').filter({ has: link })).toHaveCount(1);

    // The result page, once the node verified the instances: their table scrolls in its own box.
    await page.goto(`/workloads/default/${name}`);
    const outcome = page.getByTestId('outcome');
    await expect(outcome).toHaveAttribute('data-outcome', 'verified', { timeout: 90_000 });
    const instances = page.locator('section.scroll-region[aria-labelledby="instances-title"]');
    await checkEveryScreen(page, async () => {
      await expect(outcome).toHaveAttribute('data-outcome', 'verified');
      await expect(instances.getByRole('row')).toHaveCount(3);
    });
    await page.setViewportSize(PHONE);
    await instances.focus();
    await expect(instances).toBeFocused();

    // The edit page with a change made: the changed fields and the YAML diff are shown.
    await page.goto(`/workloads/default/${name}/edit`);
    const editCompute = field(page, 'containers.0.gpu.compute');
    // Read from the cluster first; a busy machine answers slower than the default 15 s.
    await expect(editCompute).toHaveValue('1.2', { timeout: 30_000 });
    await editCompute.fill('1.6');
    const diff = page.locator('.yaml-diff');
    await checkEveryScreen(page, async () => {
      await expect(editCompute).toHaveValue('1.6');
      await expect(diff).toBeVisible();
    });
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});
