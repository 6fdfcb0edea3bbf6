import { seedRequest } from '@mgpu/shared';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { type FormInput, fillForm } from '../support/form.js';

/**
 * Spec §9: a valid request some replicas of which no node can run now is said so in words, and
 * its create, apply or scale asks first (`仍然创建` / `Create anyway`, …); cancel sends nothing.
 */

/**
 * 7.2 of native-burst-share compute on 8 A100 cards (90 % each): valid — the A100 node holds it
 * when empty — but the default cluster's A100 node already gives 80 % of cards 0–3 to a
 * fine-tuning job, so no node takes it now. (The 4-card shape still fits cards 4–7 of a
 * fresh cluster.)
 */
const WAITING_GPU = {
  policy: 'native-burst-share',
  multiCard: true,
  cards: '8',
  compute: '7.2',
  memoryGiB: '400',
  model: 'NVIDIA-A100-SXM4-80GB',
} satisfies Omit<FormInput, 'name'>;

const WORDS = {
  'zh-CN': {
    create: '创建',
    createAnyway: '仍然创建',
    apply: '应用',
    applyAnyway: '仍然应用',
    scale: '调整副本数',
    scaleAnyway: '仍然扩容',
    replicasOf: (name: string) => `${name} 的副本数`,
    waiting: /现在没有节点能运行副本 \d+/,
    unchecked: '无法确认现在能否调度',
    uncheckedTitle: '现在能否调度',
    cancel: /^取\s*消$/,
  },
  en: {
    create: 'Create',
    createAnyway: 'Create anyway',
    apply: 'Apply',
    applyAnyway: 'Apply anyway',
    scale: 'Scale',
    scaleAnyway: 'Scale anyway',
    replicasOf: (name: string) => `Replicas of ${name}`,
    waiting: /no node can run replicas? \d+/,
    unchecked: 'Could not check whether it can be scheduled now',
    uncheckedTitle: 'can be scheduled now',
    cancel: 'Cancel',
  },
} as const;

type Lang = keyof typeof WORDS;

async function query<T>(page: Page, procedure: string, input: unknown): Promise<T> {
  const encoded = encodeURIComponent(JSON.stringify(input));
  const response = await page.request.get(`/trpc/${procedure}?input=${encoded}`);
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

interface Listed {
  name: string;
  replicas: number;
}

/** The workloads listed under `name`: what the API says exists, whatever the page shows. */
const listed = async (page: Page, name: string) =>
  (await query<Listed[]>(page, 'workload.list', {})).filter((item) => item.name === name);

async function toLanguage(page: Page, lang: Lang) {
  if (lang === 'en') await page.getByRole('button', { name: 'English' }).click();
}

/** Every `procedure` call the page makes fails as a dropped connection would. */
async function failing(page: Page, procedure: string) {
  await page.route(
    (url) => url.pathname.startsWith('/trpc/') && url.pathname.includes(procedure),
    (route) => route.abort('connectionreset'),
  );
}

/** The check failed: `button` asks anyway, naming that; cancel sends nothing. */
async function askedUncheckedAndCancelled(page: Page, lang: Lang, button: string, confirm: string) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(WORDS[lang].uncheckedTitle);
  await expect(dialog.getByTestId('waiting-unchecked')).toBeVisible();
  await expect(dialog.getByRole('button', { name: confirm, exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: WORDS[lang].cancel }).click();
  await expect(dialog).toBeHidden();
}

/** Opens the waiting dialog with `button`, checks what it says, and cancels it. */
async function askedAndCancelled(page: Page, lang: Lang, button: string, confirm: string) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText(WORDS[lang].waiting);
  // Why: the node groups' reasons, one line each.
  await expect(dialog.getByRole('listitem').first()).toBeVisible();
  await expect(dialog.getByRole('button', { name: confirm, exact: true })).toBeVisible();
  await dialog.getByRole('button', { name: WORDS[lang].cancel }).click();
  await expect(dialog).toBeHidden();
}

for (const lang of ['zh-CN', 'en'] as const) {
  const words = WORDS[lang];

  test(`${lang}: an unschedulable create says it will wait, asks, creates nothing on cancel, and creates anyway`, async ({
    page,
  }) => {
    const name = `waits-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads/new');
    await fillForm(page, { ...WAITING_GPU, name });
    await toLanguage(page, lang);
    const status = page.locator('#submit-status');
    await expect(status).toHaveAttribute('data-verdict', 'waiting');
    await expect(status).toContainText(words.waiting);
    try {
      await askedAndCancelled(page, lang, words.create, words.createAnyway);
      await expect(page).toHaveURL(/\/workloads\/new$/);
      expect(await listed(page, name)).toEqual([]);

      await page.getByRole('button', { name: words.create, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: words.createAnyway }).click();
      await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
      await expect.poll(async () => (await listed(page, name)).length).toBe(1);
    } finally {
      await page.request.post('/trpc/workload.delete', {
        data: { namespace: 'default', name },
        headers: { Origin: new URL(page.url()).origin },
      });
    }
  });

  test(`${lang}: an edit to a shape no node can run asks before applying; cancel changes nothing`, async ({
    page,
  }) => {
    const name = `waits-edit-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads/new');
    await callApi(page, 'workload.create', seedRequest(name));
    try {
      const spec = async () =>
        (await query<{ request: unknown }>(page, 'workload.get', { namespace: 'default', name }))
          .request;
      const before = await spec();
      await page.goto(`/workloads/default/${name}/edit`);
      await expect(page.getByLabel('GPU 算力', { exact: true })).toHaveValue('1.2');
      await page.getByLabel('显卡类型', { exact: true }).selectOption(WAITING_GPU.model);
      await page.getByLabel('GPU 卡数', { exact: true }).fill(WAITING_GPU.cards);
      await page.getByLabel('GPU 算力', { exact: true }).fill(WAITING_GPU.compute);
      await page.getByLabel('GPU 显存', { exact: true }).fill(WAITING_GPU.memoryGiB);
      await toLanguage(page, lang);
      await expect(page.locator('#submit-status')).toHaveAttribute('data-verdict', 'waiting');

      await askedAndCancelled(page, lang, words.apply, words.applyAnyway);
      // Nothing was sent: the workload asks for what it asked before (its status may move on).
      expect(await spec()).toEqual(before);

      await page.getByRole('button', { name: words.apply, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: words.applyAnyway }).click();
      await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
    } finally {
      await callApi(page, 'workload.delete', { namespace: 'default', name });
    }
  });

  test(`${lang}: a scale beyond what fits says so, asks, and scales nothing on cancel`, async ({
    page,
  }) => {
    const name = `waits-scale-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads/new');
    await callApi(page, 'workload.create', seedRequest(name));
    try {
      // The smallest count whose added replicas do not all fit now (the rules still accept it).
      const ask = (replicas: number) =>
        query<{ verdict: { verdict: string } }>(page, 'workload.scalePreview', {
          namespace: 'default',
          name,
          replicas,
        });
      let replicas = 2;
      while ((await ask(replicas)).verdict.verdict === 'placeable') replicas++;
      expect((await ask(replicas)).verdict.verdict).toBe('waiting');

      await page.goto(`/workloads?q=${name}`);
      await toLanguage(page, lang);
      const box = page.getByLabel(words.replicasOf(name));
      await box.fill(String(replicas));
      const row = page.getByRole('row').filter({ has: box });
      await expect(row.locator('[data-verdict="waiting"]')).toContainText(words.waiting);

      await askedAndCancelled(page, lang, words.scale, words.scaleAnyway);
      // Nothing was sent: one replica is still all that is wanted.
      expect((await listed(page, name)).map((item) => item.replicas)).toEqual([1]);
      const live = await query<{ request: { replicas: number } }>(page, 'workload.get', {
        namespace: 'default',
        name,
      });
      expect(live.request.replicas).toBe(1);
    } finally {
      await callApi(page, 'workload.delete', { namespace: 'default', name });
    }
  });

  test(`${lang}: a create whose schedulability check fails says so and asks; cancel creates nothing`, async ({
    page,
  }) => {
    const name = `unchecked-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads/new');
    await failing(page, 'workload.preview');
    await fillForm(page, { ...WAITING_GPU, name });
    await toLanguage(page, lang);
    const status = page.locator('#submit-status');
    // Not "checking…" forever: the line says the check failed.
    await expect(status).toHaveAttribute('data-verdict', 'unchecked');
    await expect(status).toContainText(words.unchecked);
    try {
      await askedUncheckedAndCancelled(page, lang, words.create, words.createAnyway);
      await expect(page).toHaveURL(/\/workloads\/new$/);
      expect(await listed(page, name)).toEqual([]);

      await page.getByRole('button', { name: words.create, exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: words.createAnyway }).click();
      await expect(page).toHaveURL(new RegExp(`/workloads/default/${name}$`));
      await expect.poll(async () => (await listed(page, name)).length).toBe(1);
    } finally {
      await callApi(page, 'workload.delete', { namespace: 'default', name });
    }
  });

  test(`${lang}: a scale whose check fails says so and asks; cancel scales nothing`, async ({
    page,
  }) => {
    const name = `unchecked-scale-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
    await page.goto('/workloads/new');
    await callApi(page, 'workload.create', seedRequest(name));
    try {
      await failing(page, 'workload.scalePreview');
      await page.goto(`/workloads?q=${name}`);
      await toLanguage(page, lang);
      const box = page.getByLabel(words.replicasOf(name));
      await box.fill('2');
      const row = page.getByRole('row').filter({ has: box });
      await expect(row.locator('[data-verdict="unchecked"]')).toContainText(words.unchecked);

      await askedUncheckedAndCancelled(page, lang, words.scale, words.scaleAnyway);
      expect((await listed(page, name)).map((item) => item.replicas)).toEqual([1]);
    } finally {
      await callApi(page, 'workload.delete', { namespace: 'default', name });
    }
  });
}
