import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { fillForm, requestOf, SEED_FORM } from '../support/form.js';
import { checkScreens, LANGS, LAPTOP, type Lang, useLanguage } from '../support/screens.js';

/**
 * WCAG 2.2 AA in the states an operator passes through (issue 29): no axe violation of any
 * impact, on a phone and a laptop, in both languages, with errors shown, a confirm dialog open,
 * a node open on the dashboard and a pod's diagnosis open on the result page. The routes at rest
 * are the screens-* specs'.
 */
const WORDS = {
  'zh-CN': {
    language: '中文',
    compute: 'GPU 算力',
    create: '创建',
    waiting: /现在没有节点能运行副本 \d+/,
    cancel: /^取\s*消$/,
    diagnosis: '诊断',
  },
  en: {
    language: 'English',
    compute: 'GPU compute',
    create: 'Create',
    waiting: /no node can run replicas? \d+/,
    cancel: 'Cancel',
    diagnosis: 'Diagnosis',
  },
} as const;

/** Switches the UI language with the shell's own switch (the bar is open at laptop width). */
async function switchTo(page: Page, lang: Lang) {
  await page.setViewportSize(LAPTOP);
  await page.getByRole('button', { name: WORDS[lang].language, exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

test('the form with errors shown, and a confirm dialog open, read in both languages at both widths', async ({
  page,
}) => {
  await page.goto('/workloads/new');
  // 3 cards of 1 compute each under native-burst-share: refused, the errors shown at the fields.
  await fillForm(page, {
    name: 'axe',
    policy: 'native-burst-share',
    multiCard: true,
    cards: '3',
    compute: '1',
    memoryGiB: '8',
  });
  for (const lang of LANGS) {
    await switchTo(page, lang);
    await checkScreens(page, () =>
      expect(page.getByLabel(WORDS[lang].compute, { exact: true })).toHaveAttribute(
        'aria-invalid',
        'true',
      ),
    );
  }

  // A valid request no node can run now (8 A100 cards at 90 %): create asks first, in a dialog.
  await switchTo(page, 'zh-CN');
  await fillForm(page, {
    name: 'axe-waiting',
    policy: 'native-burst-share',
    multiCard: true,
    cards: '8',
    compute: '7.2',
    memoryGiB: '400',
    model: 'NVIDIA-A100-SXM4-80GB',
  });
  for (const lang of LANGS) {
    await switchTo(page, lang);
    const words = WORDS[lang];
    await expect(page.locator('#submit-status')).toContainText(words.waiting);
    await page.getByRole('button', { name: words.create, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await checkScreens(page, () => expect(dialog).toContainText(words.waiting));
    await dialog.getByRole('button', { name: words.cancel }).click();
    await expect(dialog).toBeHidden();
  }
});

test('the dashboard with a node and an instance open reads in both languages at both widths', async ({
  page,
}) => {
  for (const lang of LANGS) {
    await useLanguage(page, lang);
    await page.goto('/allocations?node=l20-nbs-1&instance=team-a%2Ftrain-ddp-0%2Ftrainer%2F0');
    await expect(page.getByTestId('stream-status')).toHaveAttribute('data-status', 'live');
    await checkScreens(page, async () => {
      await expect(page.getByTestId('card-tile')).toHaveCount(4);
      await expect(page.getByTestId('instance-detail')).toContainText(
        'compute_weight_native_burst',
      );
    });
  }
});

test('the result page with a pod’s diagnosis open reads in both languages at both widths', async ({
  page,
}) => {
  const name = `axe-diag-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  await callApi(page, 'workload.create', { ...requestOf({ ...SEED_FORM, name }), lang: 'zh-CN' });
  try {
    for (const lang of LANGS) {
      await useLanguage(page, lang);
      await page.goto(`/workloads/default/${name}`);
      const diagnosis = page.getByRole('region', { name: WORDS[lang].diagnosis });
      await checkScreens(page, () =>
        expect(diagnosis.locator('li[data-reason="Started"]')).toBeVisible({ timeout: 30_000 }),
      );
    }
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
});
