/**
 * The SSE transport on its own: a real Fastify server with tRPC's plugin, a small router of
 * subscriptions, and real clients — tRPC's own `httpSubscriptionLink` (the web app's) and a raw
 * HTTP client that stops reading.
 */
import http from 'node:http';
import { snapshotEvents } from '@mgpu/api';
import { createTRPCClient, httpSubscriptionLink, TRPCClientError } from '@trpc/client';
import { initTRPC, TRPCError, tracked } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { EventSource } from 'eventsource';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventually } from '../test-support/bff-harness.js';
import { SseTransport } from './sse-transport.js';

const t = initTRPC.create();
const PADDING = 'x'.repeat(256 * 1024);
const flood = { started: 0, running: 0 };
const MAX_BUFFERED = 1024 * 1024;
/** 96 items of 256 KiB: a 24 MiB snapshot, in parts of 1 MiB (4 items). */
const SNAPSHOT_ITEMS = Array.from({ length: 96 }, (_, index) => `${index}:${PADDING}`);
const snapshotRuns = { started: 0, running: 0 };

const testRouter = t.router({
  counter: t.procedure
    .input(z.object({ count: z.number(), lastEventId: z.string().optional() }))
    .subscription(async function* ({ input }) {
      const from = input.lastEventId === undefined ? 0 : Number(input.lastEventId) + 1;
      for (let value = from; value < input.count; value++) yield tracked(String(value), { value });
    }),
  failing: t.procedure.subscription(async function* () {
    yield tracked('0', { value: 0 });
    throw new TRPCError({ code: 'CONFLICT', message: 'the feed went away' });
  }),
  silent: t.procedure.subscription(async function* ({ signal }) {
    await new Promise((resolve) => signal?.addEventListener('abort', resolve));
    yield tracked('never', {});
  }),
  /** One event three times the cut-off. */
  oneLargeEvent: t.procedure.subscription(async function* () {
    yield tracked('large', { padding: PADDING.repeat(12) });
  }),
  /** A snapshot 24 times the cut-off, in parts, then nothing more (the stream ends). */
  largeSnapshot: t.procedure.subscription(async function* () {
    snapshotRuns.started++;
    snapshotRuns.running++;
    try {
      for (const part of snapshotEvents('snapshot-1', SNAPSHOT_ITEMS, 4, (items, fields) => ({
        ...fields,
        items,
      })))
        yield tracked(part.id, part.event);
    } finally {
      snapshotRuns.running--;
    }
  }),
  /** Large events without end: what a client that stops reading is cut off from. */
  flood: t.procedure.subscription(async function* ({ signal }) {
    flood.started++;
    flood.running++;
    try {
      for (let value = 0; !signal?.aborted; value++) {
        yield tracked(String(value), { value, padding: PADDING });
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      flood.running--;
    }
  }),
});

const app = Fastify({ logger: false, forceCloseConnections: true });
const transport = new SseTransport({
  router: testRouter,
  createContext: () => ({}),
  pingIntervalMs: 100,
  reconnectAfterInactivityMs: 5_000,
  maxBufferedBytes: MAX_BUFFERED,
  stalledAfterMs: 1_000,
});
let url = '';
beforeAll(async () => {
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('x-from-hook', 'kept');
    });
    scope.addHook('onRequest', transport.hook());
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: { router: testRouter, createContext: () => ({}) },
    });
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  transport.close();
  await app.close();
});

const client = () =>
  createTRPCClient<typeof testRouter>({
    links: [httpSubscriptionLink({ url: `${url}/trpc`, EventSource })],
  });

/** The raw SSE text of one subscription until the server ends it. */
function readRaw(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      http
        .get(`${url}/trpc/${path}`, { headers }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          );
        })
        .on('error', reject);
    },
  );
}

/** Opens a subscription and never reads it: the kernel's buffers fill, then the server's. */
function stopReading(path: string) {
  let response: http.IncomingMessage | undefined;
  const request = http.get(`${url}/trpc/${path}`, (incoming) => {
    incoming.pause();
    response = incoming;
  });
  request.on('error', () => {});
  return { status: () => response?.statusCode, close: () => request.destroy() };
}

describe('the SSE transport', () => {
  it("speaks tRPC's protocol: the web app's client gets every tracked event in order, then the end", async () => {
    const received: { id: string; value: number }[] = [];
    await new Promise<void>((resolve, reject) => {
      client().counter.subscribe(
        { count: 5 },
        {
          onData: ({ id, data }) => received.push({ id, value: data.value }),
          onComplete: resolve,
          onError: reject,
        },
      );
    });
    expect(received).toEqual([0, 1, 2, 3, 4].map((value) => ({ id: String(value), value })));
  });

  it("hands a failing subscription's error to the client with its code and message", async () => {
    const error = await new Promise<unknown>((resolve) => {
      client().failing.subscribe(undefined, { onError: resolve });
    });
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<typeof testRouter>).data?.code).toBe('CONFLICT');
    expect((error as Error).message).toBe('the feed went away');
  });

  it('frames events as tRPC does, keeps the headers hooks set, and resumes after Last-Event-ID', async () => {
    const input = encodeURIComponent(JSON.stringify({ count: 4 }));
    const response = await readRaw(`counter?input=${input}`, { 'last-event-id': '1' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['x-from-hook']).toBe('kept');
    expect(response.body).toBe(
      [
        'event: connected\ndata: {"reconnectAfterInactivityMs":5000}\n\n',
        'data: {"value":2}\nid: 2\n\n',
        'data: {"value":3}\nid: 3\n\n',
        'event: return\ndata: \n\n',
      ].join(''),
    );
  });

  it('pings a silent stream so proxies and the client keep it open', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const request = http.get(`${url}/trpc/silent`, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: ping')) {
            request.destroy();
            resolve(text);
          }
        });
      });
      request.on('error', reject);
    });
    expect(body).toContain('event: ping\ndata: \n\n');
    await eventually(() => transport.streams === 0, 'the closed stream to be forgotten');
  });

  it('cuts off a subscriber that stops reading instead of buffering for it without end', async () => {
    const stalled = stopReading('flood');
    // The server gives up on it (the client, not reading, cannot even see that yet) and the
    // subscription stops producing for it.
    await eventually(
      () => flood.started === 1 && flood.running === 0 && transport.streams === 0,
      'the cut-off',
    );
    expect(stalled.status()).toBe(200);
    stalled.close();
  });

  it('sends a reading subscriber one event larger than the cut-off whole', async () => {
    const received = await new Promise<string[]>((resolve, reject) => {
      const ids: string[] = [];
      client().oneLargeEvent.subscribe(undefined, {
        onData: ({ id, data }) => {
          expect(data.padding).toHaveLength(PADDING.length * 12);
          ids.push(id);
        },
        onComplete: () => resolve(ids),
        onError: reject,
      });
    });
    expect(received).toEqual(['large']);
  });

  it('sends a reader a snapshot 24 times the cut-off, in parts, resumable only at its end', {
    timeout: 60_000,
  }, async () => {
    const parts: { id: string; part: number | undefined; more: boolean | undefined }[] = [];
    const items: string[] = [];
    await new Promise<void>((resolve, reject) => {
      client().largeSnapshot.subscribe(undefined, {
        onData: ({ id, data }) => {
          parts.push({ id, part: data.part, more: data.more });
          items.push(...data.items);
        },
        onComplete: resolve,
        onError: reject,
      });
    });
    expect(items).toEqual(SNAPSHOT_ITEMS);
    expect(parts.map((part) => part.part)).toEqual([...Array(24).keys()]);
    expect(parts.slice(0, -1).every((part) => part.more === true)).toBe(true);
    expect(parts.at(-1)).toEqual({ id: 'snapshot-1', part: 23, more: undefined });
    // Only the last part's id is the snapshot's: a reconnect from any other gets a fresh one.
    expect(parts.slice(0, -1).some((part) => part.id === 'snapshot-1')).toBe(false);
  });

  it('cuts off a subscriber that stops reading in the middle of a snapshot', async () => {
    const before = snapshotRuns.started;
    const stalled = stopReading('largeSnapshot');
    await eventually(
      () =>
        snapshotRuns.started === before + 1 &&
        snapshotRuns.running === 0 &&
        transport.streams === 0,
      'the stalled subscriber to be cut off',
    );
    expect(stalled.status()).toBe(200);
    stalled.close();
  });
});
