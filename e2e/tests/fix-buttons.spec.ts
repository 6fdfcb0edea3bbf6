import { expect, type Page, test } from '@playwright/test';

/**
 * Issue 27: every suggested fix is a button, and its click yields a request the rule accepts; a
 * fresh form is not red; multi-card sharing selects the policy it needs; the per-card panel keeps
 * its figures when a rule fails. In both languages.
 */
const WORDS = {
  'zh-CN': {
    switchTo: undefined,
    name: '名称',
    image: '镜像',
    multiCard: '多卡共享',
    policy: '算力分配策略',
    cards: 'GPU 卡数',
    compute: 'GPU 算力',
    memory: 'GPU 显存',
    model: '显卡类型',
    fix: /^改为 /,
    memoryPerCard: '显存 768 MiB',
  },
  en: {
    switchTo: 'English',
    name: 'Name',
    image: 'Image',
    multiCard: 'Multi-card sharing',
    policy: 'Compute policy',
    cards: 'GPU cards',
    compute: 'GPU compute',
    memory: 'GPU memory',
    model: 'GPU model',
    fix: /^Use /,
    memoryPerCard: 'Memory 768 MiB',
  },
} as const;

type Words = (typeof WORDS)[keyof typeof WORDS];

async function openForm(page: Page, words: Words): Promise<void> {
  await page.goto('/workloads/new');
  if (words.switchTo) await page.getByRole('button', { name: words.switchTo }).click();
  await expect(page.getByLabel(words.compute, { exact: true })).toBeVisible();
}

/** Types a multi-card request whose fields break `rule`, and answers the rule's error line. */
async function breakRule(
  page: Page,
  words: Words,
  fields: { cards: string; compute: string; memory: string },
  rule: string,
) {
  const field = (label: string) => page.getByLabel(label, { exact: true });
  await field(words.cards).fill(fields.cards);
  await field(words.compute).fill(fields.compute);
  await field(words.memory).fill(fields.memory);
  const error = page.locator(`.field-error[data-rule="${rule}"]`);
  await expect(error).toBeVisible();
  return error;
}

for (const [lang, words] of Object.entries(WORDS)) {
  test.describe(`fix buttons (${lang})`, () => {
    test('a fresh form is quiet; multi-card sharing selects native-burst-share', async ({
      page,
    }) => {
      await openForm(page, words);
      // Nothing typed yet: no field is red, though the submit row still says what is missing.
      await expect(page.locator('[aria-invalid="true"]')).toHaveCount(0);
      await expect(page.locator('.field-error')).toHaveCount(0);
      await expect(page.getByLabel(words.policy, { exact: true })).toHaveValue('');
      await page.getByLabel(words.multiCard, { exact: true }).click();
      await expect(page.getByLabel(words.policy, { exact: true })).toHaveValue(
        'native-burst-share',
      );
      // Touched now: the compute field's own error shows.
      await page.getByLabel(words.compute, { exact: true }).fill('abc');
      await expect(page.getByLabel(words.compute, { exact: true })).toHaveAttribute(
        'aria-invalid',
        'true',
      );
    });

    const cases = [
      // The case: 0.01 over 2 cards is 0.5 % per card, so only 0.02 is offered.
      { rule: 'compute-format', fields: { cards: '2', compute: '0.015', memory: '4' } },
      // 1 over 3 cards is 33.33… % per card: other computes and other card counts.
      { rule: 'per-card-compute-precision', fields: { cards: '3', compute: '1', memory: '12' } },
      // 0.5 GiB over 2 cards is 256 MiB per card.
      { rule: 'per-card-memory-range', fields: { cards: '2', compute: '0.6', memory: '0.5' } },
      { rule: 'per-card-memory-integer', fields: { cards: '3', compute: '0.6', memory: '5' } },
    ];
    for (const { rule, fields } of cases) {
      test(`${rule}: every fix button yields a request the rule accepts`, async ({ page }) => {
        await openForm(page, words);
        await page.getByLabel(words.name, { exact: true }).fill(`fix-${rule}`);
        await page.getByLabel(words.multiCard, { exact: true }).click();
        const first = await breakRule(page, words, fields, rule);
        const buttons = first.getByRole('button', { name: words.fix });
        const count = await buttons.count();
        expect(count).toBeGreaterThan(0);
        for (let i = 0; i < count; i++) {
          const error = await breakRule(page, words, fields, rule);
          const button = error.getByRole('button', { name: words.fix }).nth(i);
          const label = (await button.textContent()) ?? '';
          await button.click();
          await expect(
            page.locator(`.field-error[data-rule="${rule}"]`),
            `after "${label}"`,
          ).toHaveCount(0);
        }
      });
    }

    test('cards-exceed-node, the cluster’s answer: its fix yields a request the preview accepts', async ({
      page,
    }) => {
      await openForm(page, words);
      await page.getByLabel(words.name, { exact: true }).fill('fix-cards-exceed-node');
      // A request complete but for the broken rule, so the verdict line speaks of it alone.
      await page.getByLabel(words.image, { exact: true }).fill('nginx:1.27');
      await page.getByLabel(words.multiCard, { exact: true }).click();
      // The embedded cluster's native-burst-share L20 nodes have 4 cards: 5 fit no node.
      await page.getByLabel(words.model, { exact: true }).selectOption('NVIDIA-L20');
      const verdict = page.locator('#submit-status');
      const error = await breakRule(
        page,
        words,
        { cards: '5', compute: '0.4', memory: '20' },
        'cards-exceed-node',
      );
      await expect(verdict).toHaveAttribute('data-verdict', 'invalid');
      const button = error.getByRole('button', { name: words.fix });
      await expect(button).toHaveCount(1);
      await button.click();
      await expect(page.getByLabel(words.cards, { exact: true })).toHaveValue('4');
      // The preview's errors drop as soon as the request changes: only its verdict on the fixed
      // request (no rule broken, placeable or waiting) shows the cluster accepts it.
      await expect(verdict).toHaveAttribute('data-verdict', /^(placeable|waiting)$/);
      await expect(page.locator('.field-error[data-rule="cards-exceed-node"]')).toHaveCount(0);
    });

    test('the issue’s 0.015 on 2 cards offers 0.02 and not 0.01', async ({ page }) => {
      await openForm(page, words);
      await page.getByLabel(words.multiCard, { exact: true }).click();
      const error = await breakRule(
        page,
        words,
        { cards: '2', compute: '0.015', memory: '4' },
        'compute-format',
      );
      await expect(error.getByRole('button', { name: words.fix })).toHaveCount(1);
      await expect(error.getByRole('button', { name: words.fix })).toContainText('0.02');
      await error.getByRole('button', { name: words.fix }).click();
      await expect(page.getByLabel(words.compute, { exact: true })).toHaveValue('0.02');
      await expect(page.getByLabel(words.compute, { exact: true })).not.toHaveAttribute(
        'aria-invalid',
        'true',
      );
    });

    test('the per-card panel keeps its figures and marks the failing one', async ({ page }) => {
      await openForm(page, words);
      await page.getByLabel(words.multiCard, { exact: true }).click();
      await breakRule(
        page,
        words,
        { cards: '2', compute: '1.2', memory: '1.5' },
        'per-card-memory-range',
      );
      const panel = page.getByTestId('per-card-panel');
      await expect(panel.getByTestId('card-slot')).toHaveCount(2);
      const failing = panel.locator('.figure-failing[data-rules~="per-card-memory-range"]');
      await expect(failing).toHaveCount(2);
      await expect(failing.first()).toContainText(words.memoryPerCard);
    });
  });
}
