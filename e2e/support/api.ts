import { expect, type Page } from '@playwright/test';

/** Scripts call the API with the console's own Origin (README, "The console's HTTP API"). */
export async function callApi(page: Page, procedure: string, body: unknown) {
  const origin = new URL(page.url()).origin;
  const response = await page.request.post(`/trpc/${procedure}`, {
    data: body,
    headers: { Origin: origin },
  });
  expect(response.status(), await response.text()).toBe(200);
}
