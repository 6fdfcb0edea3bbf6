/**
 * The BFF over plain HTTP (spec §7): the bearer token and sign-in, allocations.watch over SSE,
 * and the hardening of sign-in, timeouts and logs.
 */
import http from 'node:http';
import net from 'node:net';
import type { AllocationEvent } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { plainCalls } from './http-support.js';
import {
  eventually,
  seedRequest,
  startBffTest,
  startHarness,
  subscribe,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();
const { mutate } = plainCalls(harness);

describe('the bearer token', () => {
  it('guards all of /trpc when set', async () => {
    const guarded = await startHarness({ token: 's3cret-console-token' });
    try {
      expect((await fetch(`${guarded.url}/trpc/gpu.models`)).status).toBe(401);
      const allowed = await fetch(`${guarded.url}/trpc/gpu.models`, {
        headers: { authorization: 'Bearer s3cret-console-token' },
      });
      expect(allowed.status).toBe(200);
      expect((await fetch(`${guarded.url}/%74rpc/gpu.models`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('signs a browser in at /session with a cookie that opens queries and streams, and signs it out', async () => {
    const guarded = await startHarness({ token: 's3cret-console-token' });
    const session = (method: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${guarded.url}/session`, {
        method,
        headers: {
          origin: guarded.url,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    try {
      expect(await (await fetch(`${guarded.url}/session`)).json()).toEqual({
        required: true,
        signedIn: false,
      });
      expect((await session('POST', { token: 'guess' })).status).toBe(401);
      expect(
        (await session('POST', { token: 's3cret-console-token' }, { origin: 'http://evil.test' }))
          .status,
      ).toBe(403);
      const signedIn = await session('POST', { token: 's3cret-console-token' });
      expect(signedIn.status).toBe(200);
      const setCookie = signedIn.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      // The cookie carries a derivative of the token, never the token itself.
      expect(setCookie).not.toContain('s3cret-console-token');
      const cookie = setCookie.split(';')[0] ?? '';

      expect((await fetch(`${guarded.url}/trpc/gpu.models`, { headers: { cookie } })).status).toBe(
        200,
      );
      expect(
        await (await fetch(`${guarded.url}/session`, { headers: { cookie } })).json(),
      ).toMatchObject({ signedIn: true });
      // EventSource cannot send an Authorization header: the cookie opens the stream.
      const stream = await new Promise<number>((resolve, reject) => {
        http
          .get(
            `${guarded.url}/trpc/allocations.watch?input=%7B%7D`,
            { headers: { cookie } },
            (response) => {
              resolve(response.statusCode ?? 0);
              response.destroy();
            },
          )
          .on('error', reject);
      });
      expect(stream).toBe(200);
      expect(
        (
          await fetch(`${guarded.url}/trpc/gpu.models`, {
            headers: { cookie: 'mgpu_console_session=forged' },
          })
        ).status,
      ).toBe(401);

      const signedOut = await session('DELETE', undefined, { cookie });
      expect(signedOut.headers.get('set-cookie') ?? '').toMatch(/mgpu_console_session=;/);
    } finally {
      await guarded.close();
    }
  });
});

describe('allocations.watch over SSE', () => {
  it('streams a snapshot, then the seed workload on two cards at 60 %, and resumes after a reconnect with no gap', async () => {
    const name = uniqueName('sse');
    const url = `${harness.url}/trpc/allocations.watch?input=${encodeURIComponent(JSON.stringify({ workload: name }))}`;
    const head = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(head.headers.get('content-type')).toBe('text/event-stream');
    expect(head.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(head.headers.get('x-request-id')).toBeTruthy();
    await head.body?.cancel();
    const first = subscribe(url);
    await eventually(() => first.messages.length > 0, 'the snapshot');
    expect(first.messages[0]?.event).toMatchObject({ type: 'snapshot', records: [] });

    await mutate(
      'workload.create',
      JSON.stringify({ request: seedRequest(name), clientRequestId: name, lang: 'en' }),
    );
    const verified = await eventually(() => {
      const latest = new Map<string, AllocationEvent['records'][number]>();
      for (const { event } of first.messages)
        for (const record of event.records) latest.set(record.id, record);
      const records = [...latest.values()];
      return records.length === 2 && records.every((r) => r.verification === 'verified')
        ? records
        : undefined;
    }, 'two verified instances');
    expect(new Set(verified.map((record) => record.card)).size).toBe(2);
    expect(new Set(verified.map((record) => record.node)).size).toBe(1);
    for (const record of verified) {
      expect(record).toMatchObject({
        container: 'worker',
        compute_weight_native_burst: 60,
        compute_weight_online: 60,
        vmem_limit: 4096,
      });
    }
    const resumeFrom = first.messages.at(-1)?.id ?? '';
    first.source.close();

    // While disconnected, the workload goes away; the reconnect must bring exactly that.
    await mutate('workload.delete', JSON.stringify({ namespace: 'default', name }));
    await eventually(
      () => harness.bff.context.allocations.snapshot({ workload: name }).length === 0,
      'the records to go',
    );
    const second = subscribe(url, resumeFrom);
    await eventually(
      () => second.messages.some((m) => m.event.type === 'delete'),
      'the missed delete',
    );
    second.source.close();
    expect(second.messages.every((m) => m.event.type !== 'snapshot')).toBe(true);
    const deletedIds = second.messages
      .filter((m) => m.event.type === 'delete')
      .flatMap((m) => m.event.records.map((r) => r.id));
    expect(new Set(deletedIds)).toEqual(new Set(verified.map((record) => record.id)));
  });
});

describe('hardening of sign-in, timeouts and logs', () => {
  const signIn = (url: string, token: string) =>
    fetch(`${url}/session`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });

  it('answers 429 with Retry-After after too many wrong tokens from one address', async () => {
    const guarded = await startHarness({ token: 's3cret-console-token' });
    try {
      for (let attempt = 0; attempt < 10; attempt++)
        expect((await signIn(guarded.url, 'guess')).status).toBe(401);
      const throttled = await signIn(guarded.url, 'guess');
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // The right token waits out the window too: a guesser learns nothing from the answer.
      expect((await signIn(guarded.url, 's3cret-console-token')).status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('gives each sign-in a fresh cookie with an expiry, and refuses it once expired', async () => {
    const guarded = await startHarness({ token: 's3cret-console-token', sessionMaxAgeSeconds: 1 });
    try {
      const first =
        (await signIn(guarded.url, 's3cret-console-token')).headers.get('set-cookie') ?? '';
      expect(first).toMatch(/Max-Age=1/);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second =
        (await signIn(guarded.url, 's3cret-console-token')).headers.get('set-cookie') ?? '';
      const cookie = second.split(';')[0] ?? '';
      expect(cookie).not.toBe(first.split(';')[0]);
      expect((await fetch(`${guarded.url}/trpc/gpu.models`, { headers: { cookie } })).status).toBe(
        200,
      );
      // A browser that ignores Max-Age still cannot use the cookie after it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await fetch(`${guarded.url}/trpc/gpu.models`, { headers: { cookie } })).status).toBe(
        401,
      );
    } finally {
      await guarded.close();
    }
  });

  it('cuts a request whose body trickles in, but not a long SSE stream', async () => {
    const timed = await startHarness({ timeouts: { requestMs: 600, headersMs: 600 } });
    try {
      const { port } = new URL(timed.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /trpc/workload.preview HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${timed.url}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na`,
          );
        });
        let received = '';
        socket.on('data', (chunk) => {
          received += chunk.toString();
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);

      const stream = await new Promise<{ aliveAfterMs: number }>((resolve, reject) => {
        const opened = Date.now();
        const request = http.get(
          `${timed.url}/trpc/allocations.watch?input=%7B%7D`,
          { headers: { accept: 'text/event-stream' } },
          (response) => {
            response.on('data', () => undefined);
            const timer = setTimeout(() => {
              resolve({ aliveAfterMs: Date.now() - opened });
              response.destroy();
            }, 2500);
            response.on('close', () => {
              clearTimeout(timer);
              reject(new Error(`stream closed after ${Date.now() - opened} ms`));
            });
          },
        );
        request.on('error', reject);
      });
      expect(stream.aliveAfterMs).toBeGreaterThanOrEqual(2500);
    } finally {
      await timed.close();
    }
  });

  it('never logs a token from the query string', async () => {
    const lines: string[] = [];
    const logged = await startHarness({
      token: 's3cret-console-token',
      logger: {
        level: 'info',
        stream: { write: (line: string) => void lines.push(line) },
      },
    });
    try {
      await fetch(
        `${logged.url}/trpc/gpu.models?token=s3cret-console-token&access_token=s3cret-console-token`,
        {
          headers: {
            authorization: 'Bearer s3cret-console-token',
            cookie: 'mgpu_console_session=x',
          },
        },
      );
      expect(lines.some((line) => line.includes('/trpc/gpu.models'))).toBe(true);
      expect(lines.join('\n')).not.toContain('s3cret-console-token');
    } finally {
      await logged.close();
    }
  });
});
