import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';

/** Valid on its own, but more native-burst-share compute on 8 cards than any node has free. */
function impossibleRequest(name: string) {
  const request = seedRequest(name);
  return {
    ...request,
    containers: request.containers.map((container) => ({
      ...container,
      gpu: { ...container.gpu, compute: '7.2', memoryGiB: '400', cards: 8 },
    })),
  };
}

const WORDS = {
  'zh-CN': {
    pending: '等待调度',
    failed: '失败',
    why: '现在没有节点放得下它的 Pod',
    status: '状态',
    age: '存在时长',
    short: '缺 1 个',
    ageText: /^\d+ (秒|分钟)$/,
    namespace: '命名空间',
    delete: '删除负载',
    confirm: '删除',
  },
  en: {
    pending: 'Pending',
    failed: 'Failed',
    why: 'No node can fit its pods now',
    status: 'Status',
    age: 'Age',
    short: '1 short',
    ageText: /^\d+(s|m)$/,
    namespace: 'Namespace',
    delete: 'Delete workload',
    confirm: 'Delete',
  },
} as const;

async function inLanguage(page: Page, lang: keyof typeof WORDS) {
  await page.addInitScript((value) => localStorage.setItem('mgpu.lang', value), lang);
}

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];

  test(`a workload whose pods cannot be scheduled reads ${words.pending}, never ${words.failed}, on the list and its page (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await inLanguage(page, lang);
    const name = `health-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads');
    await callApi(page, 'workload.create', impossibleRequest(name));
    try {
      // The list: status and age columns, the state with its reason, a badge on 0/1.
      await expect(
        page.getByRole('columnheader', { name: words.status, exact: true }),
      ).toBeVisible();
      await expect(page.getByRole('columnheader', { name: words.age, exact: true })).toBeVisible();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      const state = row.getByTestId('workload-state');
      await expect(state).toHaveAttribute('data-state', 'pending', { timeout: 30_000 });
      await expect(state).toContainText(words.pending);
      await expect(state).toContainText(words.why);
      await expect(row).not.toContainText(words.failed);
      await expect(row.getByTestId('replicas')).toContainText('0/1');
      await expect(row.getByTestId('replicas-short')).toHaveText(words.short);
      await expect(row.getByTestId('age')).toHaveText(words.ageText);
      // Every namespace the console may list is offered, not only those with workloads.
      const namespaces = page.getByRole('combobox', { name: words.namespace, exact: true });
      await expect(
        namespaces.getByRole('option', { name: 'kube-system', exact: true }),
      ).toHaveCount(1);

      // The result page's headline is the same state.
      await row.getByRole('link', { name }).click();
      const headline = page.getByTestId('outcome');
      await expect(headline.getByTestId('workload-state')).toHaveAttribute('data-state', 'pending');
      await expect(headline).toContainText(words.pending);
      await expect(headline).toContainText(words.why);
      await expect(headline).not.toContainText(words.failed);
      await expect(page.getByTestId('stage-scheduled')).not.toHaveAttribute('data-state', 'failed');
      await expect(page.getByTestId('stage-scheduled').getByTestId('unschedulable')).toBeVisible();

      // Delete from the list, with the result page's confirmation.
      await page.goto('/workloads');
      const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      await listed.getByRole('button', { name: words.delete }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toContainText(`default/${name}`);
      await dialog.getByRole('button', { name: words.confirm, exact: true }).click();
      await expect(listed).toHaveCount(0);
    } finally {
      await page.request.post('/trpc/workload.delete', {
        data: { namespace: 'default', name },
        headers: { Origin: new URL(page.url()).origin },
      });
    }
  });
}
