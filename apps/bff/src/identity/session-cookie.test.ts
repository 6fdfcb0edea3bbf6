/**
 * A sealed session with a large ID token, refresh token and many groups passes the 4 KB a
 * browser keeps per cookie: it travels in parts, comes back whole, and a shorter value later
 * leaves no stale part behind.
 */
import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearSessionCookie,
  SESSION_COOKIE,
  sessionCookieOf,
  setSessionCookie,
} from './session-cookie.js';

const app = Fastify();
let url = '';
beforeAll(async () => {
  await app.register(cookie);
  app.post<{ Body: { value: string } }>('/set', async (request, reply) => {
    setSessionCookie(reply, request, request.body.value, 60);
    return {};
  });
  app.get('/read', async (request) => ({ value: sessionCookieOf(request) ?? null }));
  app.delete('/set', async (request, reply) => {
    clearSessionCookie(reply, request);
    return {};
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

/** A browser's jar for one site: set-cookie in, cookie header out (an expired one removed). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
  }
  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  get sizes(): number[] {
    return [...this.cookies].map(([name, value]) => name.length + 1 + value.length);
  }
}

const send = async (jar: Jar, method: string, value?: string) => {
  const response = await fetch(`${url}/${method === 'GET' ? 'read' : 'set'}`, {
    method,
    headers: {
      cookie: jar.header,
      ...(value === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(value === undefined ? {} : { body: JSON.stringify({ value }) }),
  });
  jar.take(response);
  return (await response.json()) as { value?: string | null };
};

describe('the session cookie', () => {
  it('carries a 7,000-byte session in parts under 4 KB each, whole on the way back', async () => {
    const jar = new Jar();
    const large = 'A'.repeat(4000) + 'B'.repeat(3000);
    await send(jar, 'POST', large);
    expect(jar.sizes.length).toBe(2);
    for (const size of jar.sizes) expect(size).toBeLessThan(4000);
    expect((await send(jar, 'GET')).value).toBe(large);
    // A shorter one later (a refreshed token): no old part is joined to it.
    await send(jar, 'POST', 'short-session');
    expect(jar.sizes.length).toBe(1);
    expect((await send(jar, 'GET')).value).toBe('short-session');
  });

  it('clears every part on sign-out', async () => {
    const jar = new Jar();
    await send(jar, 'POST', 'x'.repeat(7000));
    await send(jar, 'DELETE');
    expect(jar.header).not.toContain(SESSION_COOKIE);
    expect((await send(jar, 'GET')).value).toBeNull();
  });
});
