/**
 * The console's shell (issue 29): each route's own tab title in the UI language, the navigation
 * folded into a menu on a phone, a focus ring that shows, and after a create, apply, scale or
 * delete, focus on the heading of what follows while the live region says what happened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRequest } from '@mgpu/shared';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { freePort, startConsole, stopConsole } from '../support/bff.js';
import { fillForm, SEED_FORM } from '../support/form.js';
import {
  axeViolations,
  checkScreens,
  horizontalOverflow,
  LAPTOP,
  NARROWEST,
  PHONE,
} from '../support/screens.js';

/** The sign-in and not-found pages' headings, as the catalogs word them. */
const SIGN_IN = { zh: '登录控制台', en: 'Sign in to the console' } as const;
const NOT_FOUND = { zh: '页面不存在', en: 'Page not found' } as const;

/** The console's one polite live region (apps/web/src/app/mutation-outcome.tsx). */
const announcer = (page: Page) => page.locator('#console-announcer');
const pageHeading = (page: Page) => page.getByRole('heading', { level: 1 });
/** How far the console's bar sticks out sideways (the pages' own widths have their own specs). */
const barOverflow = (page: Page) =>
  page.getByRole('banner').evaluate((bar) => {
    const right = Math.max(
      ...Array.from(bar.querySelectorAll('*'), (each) => each.getBoundingClientRect().right),
    );
    return Math.max(0, Math.ceil(right) - document.documentElement.clientWidth);
  });

test('every route has its own title, in the UI language', async ({ page }) => {
  const name = `titled-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  await callApi(page, 'workload.create', seedRequest(name, { replicas: 0 }));
  const routes = [
    ['/workloads/new', '创建负载', 'Create workload'],
    ['/workloads', '工作负载', 'Workloads'],
    [`/workloads/default/${name}`, `负载 default/${name}`, `Workload default/${name}`],
    [`/workloads/default/${name}/edit`, `编辑 default/${name}`, `Edit default/${name}`],
    ['/allocations', '分配看板', 'Allocations'],
    ['/no-such-page', '页面不存在', 'Page not found'],
  ] as const;
  try {
    const titles = new Set<string>();
    for (const [path, zh, en] of routes) {
      // One load per route; the language switch retitles the page in place.
      await page.goto(path);
      await expect(page).toHaveTitle(`${zh} · mGPU 控制台`);
      await page.getByRole('button', { name: 'English' }).click();
      await expect(page).toHaveTitle(`${en} · mGPU Console`);
      await page.getByRole('button', { name: '中文' }).click();
      await expect(page).toHaveTitle(`${zh} · mGPU 控制台`);
      titles.add(await page.title());
    }
    expect(titles.size).toBe(routes.length);
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});

test('on a phone the navigation is a menu: opened and closed from the keyboard, no sideways scroll', async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await page.goto('/workloads/new');
  const menu = page.getByRole('button', { name: '菜单' });
  const workloads = page.getByRole('link', { name: '工作负载', exact: true });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(workloads).toBeHidden();
  expect(await barOverflow(page)).toBe(0);

  await menu.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  const controlled = await menu.getAttribute('aria-controls');
  const panel = page.locator(`[id="${controlled}"]`);
  await expect(panel.getByRole('link', { name: '创建负载' })).toBeVisible();
  await expect(workloads).toBeVisible();
  await expect(panel.getByRole('link', { name: '分配看板' })).toBeVisible();
  await expect(panel.getByRole('button', { name: 'English' })).toBeVisible();
  expect(await barOverflow(page)).toBe(0);
  expect(await axeViolations(page), 'axe with the menu open').toEqual([]);

  // Tab reaches the links; Escape closes the menu and gives focus back to its button.
  await page.keyboard.press('Tab');
  await expect(panel.getByRole('link', { name: '创建负载' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toBeFocused();
  await expect(workloads).toBeHidden();

  // Following a link goes there and folds the menu again.
  await page.keyboard.press('Enter');
  await workloads.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/workloads$/);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(workloads).toBeHidden();

  await page.setViewportSize(NARROWEST);
  await expect(menu).toBeVisible();
  expect(await barOverflow(page)).toBe(0);

  // On a laptop the bar is as it was: the links in view, no menu button.
  await page.setViewportSize(LAPTOP);
  await expect(menu).toBeHidden();
  await expect(workloads).toBeVisible();
});

test('after create, apply, scale and delete: focus on the heading of what follows, and the live region says what happened', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const name = `said-${Date.now().toString(36)}`;
  const other = `said-en-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  try {
    // Create: the result page's heading, and what was created.
    await fillForm(page, { name, ...SEED_FORM });
    await page.getByRole('button', { name: '创建', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    await expect(pageHeading(page)).toHaveText(`负载 default/${name}`);
    await expect(pageHeading(page)).toBeFocused();
    await expect(announcer(page)).toHaveText(`已创建 Deployment default/${name}。`);

    // Apply an edit: back on the result page, its heading again.
    await page.getByRole('link', { name: '编辑' }).click();
    const compute = page.getByLabel('GPU 算力', { exact: true });
    await expect(compute).toHaveValue('1.2');
    await compute.fill('1');
    await page.getByRole('button', { name: '应用', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    await expect(pageHeading(page)).toBeFocused();
    await expect(announcer(page)).toHaveText(`已应用对 default/${name} 的修改。`);

    // Scale from the list: the list stays, its heading takes focus.
    await page.goto(`/workloads?q=${name}`);
    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByLabel(`${name} 的副本数`).fill('0');
    await row.getByRole('button', { name: '调整副本数' }).click();
    await expect(pageHeading(page)).toHaveText('mGPU 工作负载');
    await expect(pageHeading(page)).toBeFocused();
    await expect(announcer(page)).toHaveText(`已将 default/${name} 扩缩到 0 个副本。`);

    // Delete from the result page: the dashboard's heading, and what went.
    await page.goto(`/workloads/default/${name}`);
    await page.getByRole('button', { name: '删除负载' }).click();
    await page
      .getByRole('dialog', { name: `删除 Deployment default/${name}？` })
      .getByRole('button', { name: '删除', exact: true })
      .click();
    await expect(page).toHaveURL(/\/allocations$/);
    await expect(pageHeading(page)).toBeFocused();
    await expect(announcer(page)).toHaveText(`已删除 Deployment default/${name}。`);

    // Delete from the list, in English: the list's heading, and English words.
    await callApi(page, 'workload.create', seedRequest(other, { replicas: 0 }));
    await page.getByRole('button', { name: 'English' }).click();
    await page.goto(`/workloads?q=${other}`);
    await page
      .getByRole('row')
      .filter({ hasText: other })
      .getByRole('button', { name: 'Delete workload' })
      .click();
    await page
      .getByRole('dialog', { name: `Delete Deployment default/${other}?` })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await expect(page.getByRole('row').filter({ hasText: other })).toHaveCount(0);
    await expect(pageHeading(page)).toHaveText('mGPU workloads');
    await expect(pageHeading(page)).toBeFocused();
    await expect(announcer(page)).toHaveText(`Deployment default/${other} was deleted.`);
  } finally {
    for (const each of [name, other])
      await page.request.post('/trpc/workload.delete', {
        data: { namespace: 'default', name: each },
        headers: { Origin: new URL(page.url()).origin },
      });
  }
});

test('the sign-in page: its own title in both languages; at every width no sideways scroll, no axe violation', async ({
  page,
}) => {
  const port = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'mgpu-e2e-shell-'));
  const bff = await startConsole(port, join(stateDir, 'cluster.json'), [
    '--token',
    'e2e-shell-console-token',
  ]);
  try {
    await page.setViewportSize(NARROWEST);
    await page.goto(`http://127.0.0.1:${port}/workloads`);
    await expect(page.getByRole('heading', { name: '登录控制台' })).toBeVisible();
    await expect(page).toHaveTitle('登录 · mGPU 控制台');
    expect(await horizontalOverflow(page)).toBe(0);
    await page.getByRole('button', { name: '菜单' }).click();
    await page.getByRole('button', { name: 'English' }).click();
    await expect(page).toHaveTitle('Sign in · mGPU Console');
    expect(await horizontalOverflow(page)).toBe(0);
    await page.keyboard.press('Escape');
    // Every width in both languages: no sideways scroll, no axe violation of any impact.
    const signIn = (name: string) => async () => {
      await expect(page.getByRole('heading', { name })).toBeVisible();
    };
    await checkScreens(page, signIn(SIGN_IN.en), [NARROWEST, PHONE, LAPTOP]);
    await page.getByRole('button', { name: '中文' }).click();
    await checkScreens(page, signIn(SIGN_IN.zh), [LAPTOP, PHONE, NARROWEST]);
  } finally {
    await stopConsole(bff);
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('the not-found page at every width, in both languages', async ({ page }) => {
  await page.goto('/no-such-page');
  const notFound = (name: string) => async () => {
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  };
  await checkScreens(page, notFound(NOT_FOUND.zh), [NARROWEST, PHONE, LAPTOP]);
  await page.getByRole('button', { name: 'English' }).click();
  await checkScreens(page, notFound(NOT_FOUND.en), [LAPTOP, PHONE, NARROWEST]);
});

test('a focus ring that shows: on the text box, and on antd’s parts too', async ({ page }) => {
  const ring = (element: Locator) =>
    element.evaluate((each) => {
      const style = getComputedStyle(each);
      return `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`;
    });
  // The console's primary, #0958d9: 5.9:1 on white, 5.5:1 on the page's grey.
  const visibleRing = 'solid 2px rgb(9, 88, 217)';
  await page.goto('/workloads/new');
  const name = page.getByLabel('名称', { exact: true });
  await name.click();
  expect(await ring(name)).toBe(visibleRing);

  await page.goto('/no-such-page');
  const back = page.getByRole('link', { name: '去创建负载' });
  await expect(back).toBeVisible();
  // From the keyboard: what :focus-visible answers to.
  await page.keyboard.press('Shift');
  await back.focus();
  expect(await ring(back)).toBe(visibleRing);
});
