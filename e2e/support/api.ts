import { expect, type Page } from '@playwright/test';

type GpuFields = {
  type: string;
  multiCard?: boolean;
  compute?: string;
  memoryGiB?: string;
  cards?: number;
};

/** The seed's GPU fields (spec §3/§6): 1.2 compute on 2 cards, 8 GiB → 60 % and 4096 MiB per card. */
export const SEED_GPU: GpuFields = {
  type: 'mgpu',
  multiCard: true,
  compute: '1.2',
  memoryGiB: '8',
  cards: 2,
};

/** The seed's example as a §7 request (native-burst-share, one container `worker`), or another GPU ask in it. */
export const seedRequest = (name: string, gpu: GpuFields = SEED_GPU) => ({
  name,
  namespace: 'default',
  replicas: 1,
  computePolicy: 'native-burst-share',
  containers: [{ name: 'worker', image: 'nginx:1.27', gpu }],
});

/** Scripts call the API with the console's own Origin (README, "The console's HTTP API"). */
export async function callApi(page: Page, procedure: string, body: unknown) {
  const origin = new URL(page.url()).origin;
  const response = await page.request.post(`/trpc/${procedure}`, {
    data: body,
    headers: { Origin: origin },
  });
  expect(response.status(), await response.text()).toBe(200);
}
