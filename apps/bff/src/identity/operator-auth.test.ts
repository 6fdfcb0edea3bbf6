/**
 * `--auth kubernetes` without a session, on either cluster: nothing under /trpc answers. The
 * sign-in itself needs an API server that reviews tokens and enforces RBAC, which only the real
 * tier has (operator-auth.real.test.ts).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffHarness, startHarness } from '../test-support/bff-harness.js';

let harness: BffHarness;
beforeAll(async () => {
  harness = await startHarness({ auth: 'kubernetes' });
});
afterAll(async () => {
  await harness?.close();
});

/** A subscription's status line (the stream itself is not read). */
const streamStatus = (path: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(`${harness.url}/trpc/${path}?input=%7B%7D`, { headers }, (response) => {
        resolve(response.statusCode ?? 0);
        response.destroy();
      })
      .on('error', reject);
  });

describe('--auth kubernetes without a session', () => {
  it('says which sign-in it wants', async () => {
    expect(await (await fetch(`${harness.url}/session`)).json()).toEqual({
      required: true,
      mode: 'kubernetes',
      signedIn: false,
    });
  });

  it.each([
    ['no credentials', {}],
    ['a forged session cookie', { cookie: 'mgpu_console_session=forged' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])(
    'answers 401 on queries, mutations and subscriptions with %s',
    async (_, headers: Record<string, string>) => {
      const query = await fetch(`${harness.url}/trpc/session.whoami`, { headers });
      expect(query.status).toBe(401);
      expect(query.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await query.json()) as { error: { message: string } }).error.message).toMatch(
        /your own Kubernetes identity/,
      );
      const mutation = await fetch(`${harness.url}/trpc/workload.delete`, {
        method: 'POST',
        headers: { origin: harness.url, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ namespace: 'default', name: 'anything' }),
      });
      expect(mutation.status).toBe(401);
      for (const path of [
        'allocations.watch',
        'workload.progress',
        'cluster.pendingWatch',
        'pod.logs',
      ])
        expect(await streamStatus(path, headers)).toBe(401);
    },
  );

  it('slows guessing: refused bearer tokens from one address get 429 after the sign-in limit', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) {
      const response = await fetch(`${harness.url}/trpc/session.whoami`, {
        headers: { authorization: `Bearer guess-${attempt}` },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it('signs out a browser that has no session without error', async () => {
    const signedOut = await fetch(`${harness.url}/session`, {
      method: 'DELETE',
      headers: { origin: harness.url, cookie: 'mgpu_console_session=forged' },
    });
    expect(signedOut.status).toBe(200);
    expect(signedOut.headers.get('set-cookie') ?? '').toMatch(/mgpu_console_session=;/);
  });
});
