import { expect, test } from '@playwright/test';
import {
  type FormInput,
  fillForm,
  LABEL_OF_PATH,
  previewErrors,
  requestOf,
} from '../support/form.js';

/**
 * One request per rule that a person can type (spec §3, then issue 14's hardening rules); each
 * must block 创建 with its message while typing, not only at create.
 */
const CASES: {
  rule: string;
  /** Tells apart two cases of one rule in the test's title. */
  variant?: string;
  input: Omit<FormInput, 'name'> & { name?: string };
}[] = [
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
  // A single-card container too: the scheduler writes gpu-index-container-<name> for it.
  {
    rule: 'annotation-key-too-long',
    variant: 'single card',
    input: { containerName: 'c'.repeat(44), compute: '0.5', memoryGiB: '4' },
  },
  // Zero-width space: looks like nginx:1.27, no registry would resolve it.
  { rule: 'image-reference', input: { image: 'nginx\u200b:1.27', compute: '0.5', memoryGiB: '4' } },
  // A valid DNS subdomain, but the name is also a label value (≤ 63).
  { rule: 'name-too-long', input: { name: 'n'.repeat(64), compute: '0.5', memoryGiB: '4' } },
  // Its headless Service takes the name (a letter first, no dots); its pods' revision label ≤ 63.
  {
    rule: 'statefulset-name',
    variant: 'a dot',
    input: { kind: 'StatefulSet', name: 'web.v2', compute: '0.5', memoryGiB: '4' },
  },
  {
    rule: 'statefulset-name',
    variant: '53 characters',
    input: { kind: 'StatefulSet', name: 's'.repeat(53), compute: '0.5', memoryGiB: '4' },
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

for (const { rule, variant, input } of CASES) {
  const title = variant ? `${rule} (${variant})` : rule;
  test(`${title} blocks 创建 with its message next to its field`, async ({ page }) => {
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
