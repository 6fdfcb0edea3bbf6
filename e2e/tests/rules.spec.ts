import { expect, test } from '@playwright/test';
import {
  type FormInput,
  fillForm,
  LABEL_OF_PATH,
  previewErrors,
  requestOf,
} from '../support/form.js';

/** One request per rule of spec §3 that a person can type; each must block 创建 with its message. */
const CASES: { rule: string; input: Omit<FormInput, 'name'> }[] = [
  { rule: 'compute-format', input: { compute: '0.001', memoryGiB: '4' } },
  { rule: 'compute-whole-cards', input: { compute: '1.5' } },
  {
    rule: 'cards-range',
    input: {
      policy: 'native-burst-share',
      multiCard: true,
      cards: '9',
      compute: '1',
      memoryGiB: '8',
    },
  },
  {
    rule: 'per-card-compute-precision',
    input: {
      policy: 'native-burst-share',
      multiCard: true,
      cards: '3',
      compute: '1',
      memoryGiB: '12',
    },
  },
  {
    rule: 'per-card-compute-max',
    input: { policy: 'native-burst-share', multiCard: true, cards: '2', compute: '3' },
  },
  { rule: 'memory-required', input: { compute: '0.5' } },
  { rule: 'memory-with-whole-card', input: { compute: '1', memoryGiB: '8' } },
  {
    rule: 'per-card-memory-integer',
    input: {
      policy: 'native-burst-share',
      multiCard: true,
      cards: '3',
      compute: '0.6',
      memoryGiB: '5',
    },
  },
  { rule: 'per-card-memory-range', input: { compute: '0.5', memoryGiB: '0.5' } },
  {
    rule: 'multi-card-policy',
    input: { policy: 'fixed-share', multiCard: true, cards: '2', compute: '1.2', memoryGiB: '8' },
  },
  {
    rule: 'annotation-key-too-long',
    input: {
      containerName: 'c'.repeat(50),
      policy: 'native-burst-share',
      multiCard: true,
      cards: '2',
      compute: '1.2',
      memoryGiB: '8',
    },
  },
  {
    rule: 'per-card-memory-exceeds-model',
    input: { compute: '0.5', memoryGiB: '80', model: 'NVIDIA-L20' },
  },
  {
    rule: 'cards-exceed-node',
    input: {
      policy: 'native-burst-share',
      multiCard: true,
      cards: '8',
      compute: '0.8',
      memoryGiB: '8',
      model: 'NVIDIA-L20',
    },
  },
];

for (const { rule, input } of CASES) {
  test(`${rule} blocks 创建 with its message next to its field`, async ({ page }) => {
    const typed: FormInput = { name: `rule-${rule}`, ...input };
    const expected = (await previewErrors(page, requestOf(typed))).find((e) => e.rule === rule);
    if (!expected) throw new Error(`the BFF does not report ${rule} for ${JSON.stringify(typed)}`);

    await page.goto('/workloads/new');
    await fillForm(page, typed);
    const label = LABEL_OF_PATH[expected.path];
    if (!label) throw new Error(`no form label for ${expected.path}`);
    const field = page.getByLabel(label, { exact: true });
    await expect(field).toHaveAttribute('aria-invalid', 'true');
    const describedBy = await field.getAttribute('aria-describedby');
    expect(describedBy).toBeTruthy();
    await expect(page.locator(`[id="${describedBy}"]`)).toContainText(expected.message);
    await expect(page.getByRole('button', { name: '创建' })).toBeDisabled();
  });
}
