import { Readable } from 'node:stream';
import { preparedBytes } from '@mgpu/api';
import {
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
  type inferRouterContext,
  TRPCError,
} from '@trpc/server';
import {
  defaultTransformer,
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  isAsyncIterable,
  isObject,
  isPromise,
  transformTRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callInputOf, callSearchOf } from './call-input.js';

/**
 * Single calls answered straight from Fastify's parsed request.
 *
 * tRPC's Fastify adapter turns every request into a fetch `Request` (URL, Headers, a body
 * stream read back into a string) and its answer into a `Response` that is streamed back out:
 * about 0.8 ms of a create's time on this machine, more than the rule check and the cluster
 * look-up together (issue 6 wants the BFF's overhead on a create under 5 ms), and for a 4 MB
 * `cluster.pending` a serialisation per call that held `/healthz` while 20 ran (issue 25).
 * This transport answers the calls a console makes — one mutation or one query, plain
 * (`POST /trpc/workload.create`, `GET /trpc/cluster.pending?input=…`, as scripts send them) or as
 * a batch of one (`?batch=1`, as `httpBatchLink` sends it; a query as POST too when method
 * override is allowed) — by calling the procedure itself with tRPC's own call options, so input
 * and output validation, the error formatter, the request's abort signal and the wire format are
 * tRPC's. Output prepared with its JSON (`preparedBytes`) is written from those bytes. Anything
 * else (several calls in one batch, streamed batches, subscriptions, `connectionParams`, other
 * content types, a router with a transformer) goes on to tRPC's adapter.
 */
export interface SingleCallTransportOptions<TRouter extends AnyTRPCRouter> {
  router: TRouter;
  /** The context of one request: who is signed in on it decides whose identity its calls use. */
  createContext: (request: FastifyRequest) => inferRouterContext<TRouter>;
  onError?: (error: TRPCError, path: string | undefined) => void;
  /** As tRPC's option of that name: a query may come as a POST with a JSON body. */
  allowMethodOverride?: boolean;
}

/** `application/json`, with or without parameters, in any case (as tRPC matches it). */
const isJson = (contentType: string | undefined) =>
  contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/** A streamed batch (`httpBatchStreamLink`), as tRPC's `getAcceptHeader` recognises it. */
const wantsStream = (request: FastifyRequest) =>
  request.headers['trpc-accept'] !== undefined ||
  (request.headers.accept ?? '').split(',').some((type) => type.trim() === 'application/jsonl');

/** The router's queries and mutations by path (`_def.procedures` is flat at run time). */
function callsOf(router: AnyTRPCRouter): Map<string, AnyTRPCProcedure> {
  const procedures = router._def.procedures as unknown as Record<string, AnyTRPCProcedure>;
  return new Map(
    Object.entries(procedures).filter(([, procedure]) => procedure._def.type !== 'subscription'),
  );
}

/**
 * Output tRPC refuses to write as one JSON answer (an async iterable, or an object holding a
 * promise or one), as its `isDataStream` tells it.
 */
function isDataStream(data: unknown): boolean {
  if (!isObject(data)) return false;
  if (isAsyncIterable(data)) return true;
  const values = Object.values(data);
  return values.some(isPromise) || values.some(isAsyncIterable);
}

/**
 * Aborts when the client goes before its answer is written, as the request tRPC's adapter makes
 * does (`incomingMessageToRequest`): a procedure waiting on the cluster can stop.
 */
function leaveSignalOf(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const req = request.raw;
  const res = reply.raw;
  const onAbort = () => {
    res.off('close', onClose);
    req.off('aborted', onAbort);
    controller.abort();
  };
  // `close` comes after a whole answer too: only one cut short is the client leaving.
  const onClose = () => {
    if (res.writableEnded) {
      req.off('aborted', onAbort);
      return;
    }
    onAbort();
  };
  res.once('close', onClose);
  req.once('aborted', onAbort);
  return controller.signal;
}

/** Whether tRPC would take `method` for a procedure of `type` (its method map). */
function methodFits(type: string, method: string, allowMethodOverride: boolean): boolean {
  if (type === 'mutation') return method === 'POST';
  return method === 'GET' || (allowMethodOverride && method === 'POST');
}

/**
 * A `preHandler` hook for the scope of tRPC's routes (the body is parsed by then, and the
 * guard's `onRequest` checks have passed): answers a single query or mutation, lets anything
 * else through.
 */
export function singleCallHook<TRouter extends AnyTRPCRouter>(
  options: SingleCallTransportOptions<TRouter>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const { router, createContext } = options;
  const calls = callsOf(router);
  const config = router._def._config;
  // A transformer rewrites input and output on the wire: tRPC's adapter answers those routers.
  if (config.transformer !== defaultTransformer) return async () => undefined;
  return async (request, reply) => {
    const path = (request.params as { path?: string }).path ?? '';
    const procedure = calls.get(path);
    if (procedure === undefined || wantsStream(request)) return undefined;
    const type = procedure._def.type;
    const get = request.method === 'GET';
    if (!methodFits(type, request.method, options.allowMethodOverride ?? false)) return undefined;
    const contentType = request.headers['content-type'];
    // A GET without a content type is JSON to tRPC (a browser opening the URL); others go on.
    if (!(get && contentType === undefined) && !isJson(contentType)) return undefined;
    const search = callSearchOf(request.url);
    // tRPC reads (and may refuse) connection parameters for every call.
    if (search.has('connectionParams')) return undefined;
    const batch = search.get('batch') === '1';
    // Only a GET's missing or empty `?input=` is no input; a POST's body is JSON, even empty.
    const text = get
      ? search.get('input') || undefined
      : typeof request.body === 'string'
        ? request.body
        : '';
    const ctx = createContext(request);
    // Read when the procedure asks, as tRPC does: a procedure without input ignores bad text.
    let input: unknown;
    let answer: unknown;
    try {
      const data = await procedure({
        path,
        getRawInput: async () => {
          input = callInputOf(text, batch);
          return input;
        },
        ctx,
        type,
        signal: leaveSignalOf(request, reply),
        batchIndex: 0,
      });
      if (isDataStream(data)) {
        // tRPC refuses a single call's stream outside the call (no path, no input), a batch's in it.
        const error = new TRPCError({
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message:
            'Cannot use stream-like response in non-streaming request - use httpBatchStreamLink',
        });
        if (!batch) options.onError?.(error, undefined);
        answer = {
          error: getErrorShape({
            config,
            ctx,
            error,
            input: batch ? input : undefined,
            path: batch ? path : undefined,
            type,
          }),
        };
      } else {
        const bytes = preparedBytes(data);
        if (bytes !== undefined) return sendPrepared(reply, bytes, batch);
        answer = { result: { data } };
      }
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      options.onError?.(error, path);
      answer = { error: getErrorShape({ config, ctx, error, input, path, type }) };
    }
    const response = transformTRPCResponse(config, answer as never);
    const body = batch ? [response] : response;
    // Bytes, not a string: Fastify would add `; charset=utf-8`, which tRPC does not send.
    return send(reply, getHTTPStatusCode(body as never), Buffer.from(JSON.stringify(body)));
  };
}

/** The answer with tRPC's headers. */
function send(reply: FastifyReply, status: number, body: Buffer | Readable): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .header('vary', 'trpc-accept, accept')
    .send(body);
}

const PLAIN = { open: Buffer.from('{"result":{"data":'), close: Buffer.from('}}') };
const BATCH = { open: Buffer.from('[{"result":{"data":'), close: Buffer.from('}}]') };

/**
 * `{"result":{"data":…}}` (in an array for a batch) written around prepared data's own bytes,
 * not a copy of them: the 20 readers of one pending state are each sent the same 4 MB, the
 * only copy, kept with the output (prepared output is read-only).
 */
function sendPrepared(reply: FastifyReply, bytes: Buffer, batch: boolean): FastifyReply {
  const { open, close } = batch ? BATCH : PLAIN;
  reply.header('content-length', open.length + bytes.length + close.length);
  return send(reply, 200, Readable.from([open, bytes, close], { objectMode: false }));
}
