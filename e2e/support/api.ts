import type { Page } from '@playwright/test';

/** The seed's example (spec §3/§6): 1.2 compute on 2 cards, 8 GiB → 60 % and 4096 MiB per card. */
export const seedRequest = (name: string) => ({
  name,
  namespace: 'default',
  replicas: 1,
  computePolicy: 'native-burst-share',
  containers: [
    {
      name: 'worker',
      image: 'nginx:1.27',
      gpu: { type: 'mgpu', multiCard: true, compute: '1.2', memoryGiB: '8', cards: 2 },
    },
  ],
});

/** A mutation of the BFF's HTTP API (spec §7, §8) with the console's own Origin, as a script sends it. */
export async function mutate(page: Page, procedure: string, input: unknown) {
  const origin = new URL(page.url()).origin;
  return page.request.post(`/trpc/${procedure}`, { data: input, headers: { Origin: origin } });
}
