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
    stalled: '已停滞',
    stuck: '新 Pod 放不进任何节点，旧 Pod 仍占用原来的卡',
    oldRevision: '旧版本 · 1 个 Pod（1 个就绪）',
    newRevision: '新版本 · 1 个 Pod（0 个就绪）',
    oldShare: 'worker：2 卡 × 算力 60%',
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
    stalled: 'Stalled',
    stuck: 'The new pod fits no node while the old pod still holds its cards',
    oldRevision: 'Old revision · 1 pod(s), 1 ready',
    newRevision: 'New revision · 1 pod(s), 0 ready',
    oldShare: 'worker: 2 card(s) × 60% compute',
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

/** What `workload.get` gives an edit form: the object's version and its form fields. */
async function opened(page: Page, name: string) {
  const input = encodeURIComponent(JSON.stringify({ namespace: 'default', name }));
  const response = await page.request.get(`/trpc/workload.get?input=${input}`);
  return ((await response.json()) as { result: { data: { resourceVersion: string } } }).result.data;
}

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
      // Waiting for a node is not a stuck rollout: no way-back alert, no "stalled" anywhere.
      await expect(page.getByTestId('rollout')).toBeVisible();
      await expect(page.getByTestId('stalled-rollback')).toHaveCount(0);
      await expect(page.getByTestId('rollout')).not.toContainText(words.stalled);
      await expect(page.locator('.result-page')).not.toContainText(words.stalled);
      // Nor "Failed" anywhere on the page: the pod's diagnosis opens on its scheduler Event,
      // whose reason (FailedScheduling) is worded as the wait it is.
      const waited = page.locator('.pod-events li[data-reason="FailedScheduling"]');
      await expect(waited.first()).toBeVisible({ timeout: 30_000 });
      await expect(waited.first()).toContainText(
        words.pending === 'Pending' ? 'Waiting for a node' : '等待调度',
      );
      await expect(page.locator('.result-page')).not.toContainText(words.failed);

      // Delete from the list, with the result page's confirmation.
      await page.goto('/workloads');
      const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      await listed.getByRole('button', { name: words.delete }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toContainText(`default/${name}`);
      await dialog.getByRole('button', { name: words.confirm, exact: true }).click();
      await expect(dialog).toBeHidden();
      // Gone once Kubernetes has deleted it (its pods first): slower on a busy machine.
      await expect(listed).toHaveCount(0, { timeout: 60_000 });
    } finally {
      await page.request.post('/trpc/workload.delete', {
        data: { namespace: 'default', name },
        headers: { Origin: new URL(page.url()).origin },
      });
    }
  });
}

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];

  test(`a stuck edit reads ${words.stalled} with its reason, and the list shows each revision's share (${lang})`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await inLanguage(page, lang);
    const name = `stuck-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto(`/workloads?q=${name}`);
    await callApi(page, 'workload.create', seedRequest(name));
    try {
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
      await expect(row.getByTestId('workload-state')).toHaveAttribute('data-state', 'running', {
        timeout: 60_000,
      });
      // The edit asks more than any node has free: its new pod waits, the old one keeps running.
      const { resourceVersion } = await opened(page, name);
      await callApi(page, 'workload.update', {
        namespace: 'default',
        name,
        resourceVersion,
        request: impossibleRequest(name),
      });
      const state = row.getByTestId('workload-state');
      await expect(state).toHaveAttribute('data-state', 'stalled', { timeout: 30_000 });
      await expect(state).toContainText(words.stalled);
      await expect(state).toContainText(words.stuck);
      await expect(row).not.toContainText(words.failed);
      // Never one share for pods that differ: the new revision's and the old one's, with pods.
      await expect(row.locator('[data-revision="current"]')).toContainText(words.newRevision);
      await expect(row.locator('[data-revision="old"]')).toContainText(words.oldRevision);
      await expect(row.locator('[data-revision="old"]')).toContainText(words.oldShare);

      await row.getByRole('link', { name }).click();
      const headline = page.getByTestId('outcome');
      await expect(headline.getByTestId('workload-state')).toHaveAttribute('data-state', 'stalled');
      await expect(headline).toContainText(words.stuck);
      await expect(headline).not.toContainText(words.failed);
    } finally {
      await page.request.post('/trpc/workload.delete', {
        data: { namespace: 'default', name },
        headers: { Origin: new URL(page.url()).origin },
      });
    }
  });
}
