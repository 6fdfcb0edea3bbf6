/**
 * What the plain-HTTP tests (`http.test.ts`, `http-session.test.ts`) share: spec §7's calls as a
 * script makes them, against the test file's own BFF.
 */
import http from 'node:http';
import type { BffHarness } from './test-support/bff-harness.js';

/** A query over GET `?input=` and a mutation over POST, from the console's Origin by default. */
export function plainCalls(harness: BffHarness) {
  const query = (procedure: string, input: unknown) =>
    fetch(`${harness.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`);

  const mutate = (
    procedure: string,
    body: string,
    headers: Record<string, string> = { origin: harness.url },
  ) =>
    fetch(`${harness.url}/trpc/${procedure}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  return { query, mutate };
}

/** A GET with a chosen Host header (fetch may not set one). */
export function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.on('error', reject);
  });
}

export interface ErrorBody {
  error: {
    message: string;
    data?: { ruleErrors?: { path: string; rule: string }[]; httpStatus?: number };
  };
}
