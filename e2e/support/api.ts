import type { Page } from '@playwright/test';

/** A mutation of the BFF's HTTP API (spec §7, §8) with the console's own Origin, as a script sends it. */
export async function mutate(page: Page, procedure: string, input: unknown) {
  const origin = new URL(page.url()).origin;
  return page.request.post(`/trpc/${procedure}`, { data: input, headers: { Origin: origin } });
}
