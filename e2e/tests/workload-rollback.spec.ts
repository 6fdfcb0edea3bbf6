import { SEED_GPU, seedRequest } from '@mgpu/shared';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { startReachableCluster } from '../support/cluster.js';
import { createWithKubectl, deploymentField } from '../support/unmanaged.js';

/**
 * Issue 27, "a way back": an edit whose new pod fits nowhere while the old pods hold their cards
 * stalls; the result page says so first and rolls back in one click, after which no pod waits,
 * the old pods keep their nodes and cards, and the workload reads Running.
 *
 * Two replicas of the seed's ask (1.2 on 2 cards, 60 % each) pinned to the A100 pool take its
 * four free cards (4–7; a fine-tuning job holds 0–3); at 1.6 (80 % a card) the rollout's new pod
 * fits on no card while the old pods keep theirs: the issue's own example.
 */
const STUCK_GPU = { ...SEED_GPU, model: 'NVIDIA-A100-SXM4-80GB' };

const WORDS = {
  'zh-CN': {
    compute: 'GPU 算力',
    apply: '应用',
    applyAnyway: '仍然应用',
    waitsFromFirst: '现在没有节点能运行副本 1–2',
    // Exactly as written: antd would space out two CJK characters ("回 滚") on any page,
    // the edit page's history included, without the console's antd settings.
    rollback: /^回滚$/,
    running: '运行中',
    history: '历史版本',
    revision: (n: number) => `版本 ${n}`,
    current: '当前',
    stuck: '滚动更新已停滞',
    confirmTitle: '回滚到版本 2？',
    cancel: /^取消$/,
  },
  en: {
    compute: 'GPU compute',
    apply: 'Apply',
    applyAnyway: 'Apply anyway',
    waitsFromFirst: 'no node can run replicas 1–2',
    rollback: /^Roll back$/,
    running: 'Running',
    history: 'Revision history',
    revision: (n: number) => `Revision ${n}`,
    current: 'Current',
    stuck: 'The rollout is stuck',
    confirmTitle: 'Roll back to revision 2?',
    cancel: /^Cancel$/,
  },
} as const;

/** Each pod of the rollout panel as `revision name → node (cards …)`, sorted: where each runs. */
async function podsAndCards(rollout: Locator): Promise<string[]> {
  return (await rollout.locator('ul.rollout-pods > li').allInnerTexts()).sort();
}

async function applyEdit(page: Page, lang: keyof typeof WORDS, resultPath: RegExp) {
  const words = WORDS[lang];
  // The rolling update's first new pod must fit beside both old ones (maxUnavailable 0 for two
  // replicas), which hold the pool's free cards: the edit waits from replica 1 on, says so
  // before it is sent, and asks (spec §9); the operator goes ahead.
  await expect(page.locator('#submit-status')).toHaveAttribute('data-verdict', 'waiting');
  await expect(page.locator('#submit-status')).toContainText(words.waitsFromFirst);
  await page.getByRole('button', { name: words.apply, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(words.waitsFromFirst);
  await dialog.getByRole('button', { name: words.applyAnyway }).click();
  await expect(page).toHaveURL(resultPath);
}

for (const lang of ['zh-CN', 'en'] as const) {
  test(`${lang}: a stuck edit is rolled back in one click; the old pods keep their cards and it reads Running`, async ({
    page,
  }) => {
    const words = WORDS[lang];
    const name = `undo-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    const resultPath = new RegExp(`/workloads/default/${name}$`);
    await page.goto('/workloads/new');
    if (lang === 'en') await page.getByRole('button', { name: 'English' }).click();
    await callApi(page, 'workload.create', seedRequest(name, { replicas: 2 }, STUCK_GPU));
    try {
      await page.goto(`/workloads/default/${name}`);
      const rollout = page.getByTestId('rollout');
      const outcome = page.getByTestId('outcome');
      await expect(outcome).toContainText(words.running, { timeout: 60_000 });
      await expect(rollout).toHaveAttribute('data-state', 'complete');
      await expect(rollout.locator('ul.rollout-pods > li')).toHaveCount(2);
      await expect(rollout.locator('ul.rollout-pods')).toContainText('a100-nbs-0', {
        timeout: 30_000,
      });
      const before = await podsAndCards(rollout);

      await page.goto(`/workloads/default/${name}/edit`);
      const compute = page.getByLabel(words.compute, { exact: true });
      await expect(compute).toHaveValue('1.2');
      await compute.fill('1.6');
      await applyEdit(page, lang, resultPath);

      // Stuck: said first, with the way back.
      await expect(rollout).toHaveAttribute('data-state', 'stalled', { timeout: 60_000 });
      const stalled = page.getByTestId('stalled-rollback');
      await expect(stalled).toContainText(words.stuck);
      // It names the revision it goes back to (mid-sentence in English: any case).
      await expect(stalled).toContainText(new RegExp(`${words.revision(1)}\\b`, 'i'));
      const history = page.getByTestId('history');
      await expect(history).toContainText(words.history);
      await expect(history.locator('li[data-current="true"]')).toContainText(words.revision(2));
      await expect(history.locator('li[data-current="true"]')).toContainText(words.current);

      await stalled.getByRole('button', { name: words.rollback }).click();

      // Back: no pod waits, the same pods on the same nodes and cards, Running.
      await expect(rollout).toHaveAttribute('data-state', 'complete', { timeout: 60_000 });
      await expect(page.getByTestId('stalled-rollback')).toHaveCount(0);
      await expect(page.getByTestId('unschedulable')).toHaveCount(0);
      await expect(rollout.locator('ul.rollout-pods > li')).toHaveCount(2);
      expect(await podsAndCards(rollout)).toEqual(before);
      await expect(outcome).toContainText(words.running);
      // Kubernetes took revision 1's ReplicaSet back under the next number.
      await expect(history.locator('li[data-current="true"]')).toContainText(words.revision(3), {
        timeout: 15_000,
      });

      // The edit page lists the same revisions; its Roll back asks first, naming the revision,
      // and a cancel changes nothing.
      await page.goto(`/workloads/default/${name}/edit`);
      const revisions = page.getByTestId('history');
      await expect(revisions.locator('li[data-current="true"]')).toContainText(words.revision(3));
      await revisions
        .locator('li[data-revision="2"]')
        .getByRole('button', { name: words.rollback })
        .click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toContainText(words.confirmTitle);
      await expect(dialog).toContainText('1.6');
      await dialog.getByRole('button', { name: words.cancel }).click();
      await expect(dialog).toHaveCount(0);
      await expect(page.getByLabel(words.compute, { exact: true })).toHaveValue('1.2');
    } finally {
      await callApi(page, 'workload.delete', { namespace: 'default', name });
    }
  });
}

test('zh-CN: a rollback of a workload made with kubectl asks first, then goes through with force', async ({
  page,
}) => {
  const cluster = await startReachableCluster();
  const consoleURL = (path: string) => `${cluster.consoleURL ?? ''}${path}`;
  const name = `undo-kubectl-${Date.now().toString(36)}`;
  const computeInCluster = () =>
    deploymentField(
      cluster,
      name,
      '{.spec.template.spec.containers[0].resources.limits.vke\\.volcengine\\.com/mgpu-core}',
    );
  const post = (procedure: string, data: unknown) =>
    page.request.post(consoleURL(`/trpc/${procedure}`), {
      data,
      headers: { Origin: new URL(page.url()).origin },
    });
  try {
    await page.goto(consoleURL('/workloads/new'));
    // Made outside the console (no pods), then edited once with force: two revisions.
    await createWithKubectl(page, cluster, seedRequest(name, { replicas: 0 }));
    const input = encodeURIComponent(JSON.stringify({ namespace: 'default', name }));
    const live = await page.request.get(consoleURL(`/trpc/workload.get?input=${input}`));
    const { resourceVersion } = (
      (await live.json()) as { result: { data: { resourceVersion: string } } }
    ).result.data;
    const edited = seedRequest(name, { replicas: 0 });
    const update = await post('workload.update', {
      namespace: 'default',
      name,
      resourceVersion,
      force: true,
      request: {
        ...edited,
        containers: edited.containers.map((container) => ({
          ...container,
          gpu: { ...container.gpu, compute: '1.6' },
        })),
      },
    });
    expect(update.status(), await update.text()).toBe(200);
    expect(computeInCluster()).toBe('160');

    await page.goto(consoleURL(`/workloads/default/${name}`));
    const history = page.getByTestId('history');
    await expect(history.locator('li[data-current="true"]')).toContainText('版本 2', {
      timeout: 30_000,
    });
    await history
      .locator('li[data-revision="1"]')
      .getByRole('button', { name: /^回滚$/ })
      .click();
    await page
      .getByRole('dialog')
      .filter({ hasText: '回滚到版本 1？' })
      .getByRole('button', { name: /^回滚$/ })
      .click();
    // Refused as not the console's: asked, not failed; confirmed, it goes with force.
    const notManaged = page.getByRole('dialog').filter({ hasText: '不是由本控制台创建的' });
    await expect(notManaged).toContainText(`default/${name}`);
    await expect(page.getByText('回滚失败')).toHaveCount(0);
    await notManaged.getByRole('button', { name: '确认回滚' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect.poll(computeInCluster, { timeout: 30_000 }).toBe('120');
    // Once it went through, still no failure said anywhere on the page.
    await expect(page.getByText('回滚失败')).toHaveCount(0);
  } finally {
    await page.request.post(consoleURL('/trpc/workload.delete'), {
      data: { namespace: 'default', name, force: true },
      headers: { Origin: new URL(page.url()).origin },
    });
    await cluster.stop();
  }
});
