/**
 * The single-call transport on its own: two real Fastify servers with tRPC's plugin and the same
 * router, one with the transport in front. Every request gets the same status and the same body
 * from both (the transport speaks tRPC's wire format exactly) but a prepared output's, which
 * carries the same data as its own JSON wrote it (its own key order); a procedure sees its
 * client leave through either; tRPC's own client — the web app's `httpBatchLink` — works
 * against it.
 */
import { prepareOutput } from '@mgpu/api';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { initTRPC, TRPCError } from '@trpc/server';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventually } from '../test-support/bff-harness.js';
import { singleCallHook } from './single-call-transport.js';

const t = initTRPC.create({
  errorFormatter: ({ shape }) => ({ ...shape, data: { ...shape.data, stack: undefined } }),
});
const created: string[] = [];
/** Calls of `waitForLeave` that started, and those that saw their client leave. */
const leaving = { waiting: 0, left: 0 };

const testRouter = t.router({
  create: t.procedure
    .input(z.object({ name: z.string().min(1) }))
    .output(z.object({ name: z.string(), count: z.number() }))
    .mutation(({ input }) => {
      if (created.includes(input.name))
        throw new TRPCError({ code: 'CONFLICT', message: `${input.name} exists` });
      created.push(input.name);
      return { name: input.name, count: created.length };
    }),
  crash: t.procedure.mutation(() => {
    throw new Error('disk on fire');
  }),
  badOutput: t.procedure.output(z.object({ ok: z.literal(true) })).mutation(() => ({
    ok: false as unknown as true,
  })),
  noInput: t.procedure.mutation(() => 'done'),
  read: t.procedure.query(() => 'read'),
  find: t.procedure
    .input(z.object({ name: z.string().min(1) }))
    .output(z.object({ name: z.string(), index: z.number() }))
    .query(({ input }) => {
      const index = created.indexOf(input.name);
      if (index === -1) throw new TRPCError({ code: 'NOT_FOUND', message: `no ${input.name}` });
      return { name: input.name, index };
    }),
  // Its JSON is written with its keys in another order than JSON.stringify's: which text the
  // answer carries shows whether the transport wrote it.
  prepared: t.procedure.query(() =>
    prepareOutput(z.unknown(), [{ count: created.length, names: [...created] }], () =>
      JSON.stringify([{ names: created, count: created.length }]),
    ),
  ),
  readCrash: t.procedure.query(() => {
    throw new Error('disk on fire');
  }),
  // As `cluster.pending`: the input (a filter) may be left out.
  search: t.procedure
    .input(z.object({ name: z.string() }).optional())
    .query(({ input }) => created.filter((name) => input === undefined || name === input.name)),
  // Output with a promise in it: only a streaming link may carry it.
  streamLike: t.procedure.query(() => ({ later: Promise.resolve(1) })),
  waitForLeave: t.procedure.query(
    ({ signal }) =>
      new Promise<string>((resolve) => {
        leaving.waiting++;
        signal?.addEventListener(
          'abort',
          () => {
            leaving.left++;
            resolve('left');
          },
          { once: true },
        );
      }),
  ),
});
type TestRouter = typeof testRouter;

/** Which layer answered: the transport or tRPC's adapter (each has its own context factory). */
const answeredBy = { transport: 0, adapter: 0 };
const errors: string[] = [];

async function serve(withTransport: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  await app.register(async (scope) => {
    if (withTransport)
      scope.addHook(
        'preHandler',
        singleCallHook({
          router: testRouter,
          allowMethodOverride: true,
          createContext: () => {
            answeredBy.transport++;
            return {};
          },
          onError: (error, path) => errors.push(`${path}: ${error.code}`),
        }),
      );
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: testRouter,
        allowMethodOverride: true,
        createContext: () => {
          if (withTransport) answeredBy.adapter++;
          return {};
        },
      },
    });
  });
  return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }) };
}

let reference: { app: FastifyInstance; url: string };
let fast: { app: FastifyInstance; url: string };

beforeAll(async () => {
  reference = await serve(false);
  fast = await serve(true);
});
afterAll(async () => {
  await reference.app.close();
  await fast.app.close();
});

async function post(base: string, path: string, body: string, contentType = 'application/json') {
  const response = await fetch(`${base}/trpc/${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
  };
}

describe('mutations through the transport', () => {
  // Each case runs on the reference first: `create` remembers names, so both see the same state.
  it.each([
    ['a plain mutation', 'create', '{"name":"a"}'],
    ['a batch of one', 'create?batch=1', '{"0":{"name":"b"}}'],
    ['a conflict', 'create', '{"name":"a"}'],
    ['a conflict in a batch of one', 'create?batch=1', '{"0":{"name":"b"}}'],
    ['invalid input', 'create', '{"name":""}'],
    ['wrong input types in a batch', 'create?batch=1', '{"0":{"name":5}}'],
    ['malformed JSON', 'create', '{"name": '],
    ['malformed JSON in a batch', 'create?batch=1', '{"0": '],
    ['a batch that is not an object', 'create?batch=1', '[1]'],
    ['an empty body', 'noInput', ''],
    ['an empty body to a mutation with input', 'create', ''],
    ['an empty body in a batch', 'create?batch=1', ''],
    ['an empty body to a query whose input may be left out', 'search', ''],
    ['an empty body to such a query in a batch', 'search?batch=1', ''],
    ['a procedure that throws', 'crash', '{}'],
    ['an output that breaks its schema', 'badOutput', '{}'],
  ])('answers %s exactly as tRPC does', async (_label, path, body) => {
    const before = answeredBy.transport;
    const names = created.length;
    const expected = await post(reference.url, path, body);
    created.length = names;
    const actual = await post(fast.url, path, body);
    expect(answeredBy.transport).toBe(before + 1);
    expect(actual).toEqual(expected);
  });

  it('leaves to tRPC what it does not answer: batches of several, a GET to a mutation, other media types', async () => {
    const before = { ...answeredBy };
    const batch = await post(
      fast.url,
      'create,create?batch=1',
      '{"0":{"name":"c"},"1":{"name":"c"}}',
    );
    expect(batch.status).toBe(207);
    expect(JSON.parse(batch.body)).toMatchObject([
      { result: { data: { name: 'c' } } },
      { error: { data: { code: 'CONFLICT' } } },
    ]);
    expect((await fetch(`${fast.url}/trpc/noInput`)).status).toBe(405);
    expect((await post(fast.url, 'create', '{"name":"d"}', 'text/plain')).status).toBe(415);
    // The batch and the GET reached tRPC; the text body was refused before any handler.
    expect(answeredBy).toEqual({ transport: before.transport, adapter: before.adapter + 2 });
  });

  it('reports failures to onError, as tRPC reports its own', () => {
    expect(errors).toContain('crash: INTERNAL_SERVER_ERROR');
    expect(errors).toContain('create: CONFLICT');
  });
});

async function get(base: string, pathAndQuery: string) {
  const response = await fetch(`${base}/trpc/${pathAndQuery}`);
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
  };
}

const inputOf = (input: unknown) => encodeURIComponent(JSON.stringify(input));

describe('queries through the transport', () => {
  it.each([
    ['a plain query', `find?input=${inputOf({ name: 'a' })}`],
    ['a batch of one', `find?batch=1&input=${inputOf({ 0: { name: 'a' } })}`],
    ['a miss', `find?input=${inputOf({ name: 'nobody' })}`],
    ['a miss in a batch of one', `find?batch=1&input=${inputOf({ 0: { name: 'nobody' } })}`],
    ['invalid input', `find?input=${inputOf({ name: '' })}`],
    ['no input where one is needed', 'find'],
    ['malformed JSON', 'find?input=%7B%22name'],
    ['malformed JSON in a batch', 'find?batch=1&input=%7B'],
    ['a batch that is not an object', `find?batch=1&input=${inputOf([1])}`],
    ['malformed JSON to a query that reads no input', 'read?input=%7B'],
    ['a query that throws', 'readCrash'],
    ['an empty input to a query whose input may be left out', 'search?input='],
    ['output with a promise in it', 'streamLike'],
    ['output with a promise in it, in a batch', 'streamLike?batch=1'],
  ])('answers %s exactly as tRPC does', async (_label, pathAndQuery) => {
    const before = answeredBy.transport;
    const expected = await get(reference.url, pathAndQuery);
    const actual = await get(fast.url, pathAndQuery);
    expect(answeredBy.transport).toBe(before + 1);
    expect(actual).toEqual(expected);
  });

  it.each([
    ['well-formed', `read?connectionParams=${inputOf({ team: 'a' })}`],
    ['malformed', 'read?connectionParams=%7B'],
    [
      'of the wrong shape',
      `find?connectionParams=${inputOf({ team: 5 })}&input=${inputOf({ name: 'a' })}`,
    ],
  ])('leaves %s connection parameters to tRPC, which reads them', async (_label, pathAndQuery) => {
    const before = answeredBy.transport;
    const expected = await get(reference.url, pathAndQuery);
    const actual = await get(fast.url, pathAndQuery);
    expect(actual).toEqual(expected);
    // tRPC refuses bad ones before it makes a context, so only the transport's count tells.
    expect(answeredBy.transport).toBe(before);
  });

  it('tells the procedure when its client leaves, as tRPC does', async () => {
    for (const server of [reference, fast]) {
      const { waiting, left } = leaving;
      const before = { ...answeredBy };
      const client = new AbortController();
      const call = fetch(`${server.url}/trpc/waitForLeave`, { signal: client.signal });
      call.catch(() => undefined);
      await eventually(() => leaving.waiting > waiting, 'the call to reach the procedure');
      // Through the transport's server, the transport itself took the call, not tRPC's adapter.
      if (server === fast)
        expect(answeredBy).toEqual({ transport: before.transport + 1, adapter: before.adapter });
      client.abort();
      await eventually(
        () => leaving.left > left,
        () => `the procedure to see ${server.url}'s client leave`,
      );
    }
  });

  it('answers a query sent as POST (method override) as tRPC does', async () => {
    const expected = await post(reference.url, 'find?batch=1', '{"0":{"name":"a"}}');
    const actual = await post(fast.url, 'find?batch=1', '{"0":{"name":"a"}}');
    expect(actual).toEqual(expected);
    expect(JSON.parse(actual.body)).toEqual([{ result: { data: { name: 'a', index: 0 } } }]);
  });

  it('writes a prepared output from its own JSON: the same answer as tRPC, not serialised again', async () => {
    for (const pathAndQuery of ['prepared', 'prepared?batch=1']) {
      const expected = await get(reference.url, pathAndQuery);
      const actual = await get(fast.url, pathAndQuery);
      expect({ ...actual, body: JSON.parse(actual.body) }).toEqual({
        ...expected,
        body: JSON.parse(expected.body),
      });
      // The prepared text as it was written (names before count), where tRPC serialised the data.
      const data = `[{"names":${JSON.stringify(created)},"count":${created.length}}]`;
      const written = `{"result":{"data":${data}}}`;
      expect(actual.body).toBe(pathAndQuery.includes('batch') ? `[${written}]` : written);
      expect(expected.body).not.toBe(actual.body);
    }
  });
});

describe("tRPC's own clients against the transport", () => {
  it('creates and refuses through httpBatchLink, as the web app does', async () => {
    const client = createTRPCClient<TestRouter>({
      links: [httpBatchLink({ url: `${fast.url}/trpc` })],
    });
    const before = answeredBy.transport;
    await expect(client.create.mutate({ name: 'e' })).resolves.toMatchObject({ name: 'e' });
    const refused = await client.create.mutate({ name: 'e' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<TestRouter>).data?.code).toBe('CONFLICT');
    expect((refused as TRPCClientError<TestRouter>).message).toBe('e exists');
    expect(answeredBy.transport).toBe(before + 2);
  });

  it('creates through httpLink, as a script would', async () => {
    const client = createTRPCClient<TestRouter>({ links: [httpLink({ url: `${fast.url}/trpc` })] });
    await expect(client.create.mutate({ name: 'f' })).resolves.toMatchObject({ name: 'f' });
  });
});
