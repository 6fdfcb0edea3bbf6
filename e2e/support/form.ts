import { expect, type Page } from '@playwright/test';

/** What a person types into the creation form (zh-CN labels of spec §7). */
export interface FormInput {
  /** 工作负载类型: Deployment when absent (spec §8). */
  kind?: 'Deployment' | 'StatefulSet' | 'Job';
  name: string;
  image?: string;
  policy?: string;
  containerName?: string;
  multiCard?: boolean;
  compute?: string;
  memoryGiB?: string;
  cards?: string;
  model?: string;
}

/** The seed's example as typed into the form (spec §3/§6): 1.2 compute on 2 cards, 8 GiB. */
export const SEED_FORM: Omit<FormInput, 'name'> = {
  policy: 'native-burst-share',
  multiCard: true,
  cards: '2',
  compute: '1.2',
  memoryGiB: '8',
};

/** The workload request the same typing stands for (spec §7), to ask the BFF what it expects. */
export function requestOf(input: FormInput) {
  return {
    ...(input.kind ? { kind: input.kind } : {}),
    name: input.name,
    namespace: 'default',
    replicas: 1,
    ...(input.policy ? { computePolicy: input.policy } : {}),
    containers: [
      {
        name: input.containerName ?? 'main',
        image: input.image ?? 'nginx:1.27',
        gpu: {
          type: 'mgpu',
          multiCard: input.multiCard ?? false,
          compute: input.compute ?? '',
          memoryGiB: input.memoryGiB ?? '',
          ...(input.multiCard ? { cards: input.cards ?? '' } : {}),
          ...(input.model ? { model: input.model } : {}),
        },
      },
    ],
  };
}

export async function fillForm(page: Page, input: FormInput): Promise<void> {
  if (input.kind) await page.getByLabel('工作负载类型', { exact: true }).selectOption(input.kind);
  await page.getByLabel('名称', { exact: true }).fill(input.name);
  await page.getByLabel('镜像', { exact: true }).fill(input.image ?? 'nginx:1.27');
  if (input.containerName !== undefined)
    await page.getByLabel('容器名', { exact: true }).fill(input.containerName);
  if (input.policy)
    await page.getByLabel('算力分配策略', { exact: true }).selectOption(input.policy);
  const multiCard = page.getByLabel('多卡共享', { exact: true });
  if ((await multiCard.getAttribute('aria-checked')) !== String(input.multiCard ?? false))
    await multiCard.click();
  if (input.multiCard) await page.getByLabel('GPU 卡数', { exact: true }).fill(input.cards ?? '');
  await page.getByLabel('GPU 算力', { exact: true }).fill(input.compute ?? '');
  await page.getByLabel('GPU 显存', { exact: true }).fill(input.memoryGiB ?? '');
  if (input.model) await page.getByLabel('显卡类型', { exact: true }).selectOption(input.model);
}

export interface ExpectedError {
  path: string;
  rule: string;
  message: string;
}

/** The BFF's own answer for a request: the errors (with cluster-aware rules) the form must show. */
export async function previewErrors(page: Page, request: unknown): Promise<ExpectedError[]> {
  const input = encodeURIComponent(JSON.stringify({ request, lang: 'zh-CN' }));
  const response = await page.request.get(`/trpc/workload.preview?input=${input}`);
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { result: { data: { errors: ExpectedError[] } } };
  return body.result.data.errors;
}

/** Form labels by request path, so a test can find the field a rule names. */
export const LABEL_OF_PATH: Record<string, string> = {
  name: '名称',
  computePolicy: '算力分配策略',
  'containers.0.name': '容器名',
  'containers.0.image': '镜像',
  'containers.0.gpu.compute': 'GPU 算力',
  'containers.0.gpu.memoryGiB': 'GPU 显存',
  'containers.0.gpu.cards': 'GPU 卡数',
  'containers.0.gpu.model': '显卡类型',
};
