import { preparedJson } from '@mgpu/api';
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
  transformTRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
 * and output validation, the error formatter and the wire format are tRPC's. Output prepared
 * with its JSON (`preparedJson`) is written from that text. Anything else (several calls in one
 * batch, streamed batches, subscriptions, other content types) goes on to tRPC's adapter.
 */
export interface SingleCallTransportOptions<TRouter extends AnyTRPCRouter> {
  router: TRouter;
  /** The context of one request: who is signed in on it decides whose identity its calls use. */
  createContext: (request: FastifyRequest) => inferRouterContext<TRouter>;
  onError?: (error: TRPCError, path: string) => void;
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

/** The call's input: the text itself, or entry `0` of a batch of one; undefined for no text. */
function inputOf(text: unknown, batch: boolean): unknown {
  if (typeof text !== 'string' || text.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    // As tRPC answers it: 400 with the parser's message.
    throw new TRPCError({ code: 'BAD_REQUEST', cause });
  }
  if (!batch) return parsed;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: '"input" needs to be an object when doing a batch call',
    });
  return (parsed as Record<string, unknown>)['0'];
}

/** The request's query string as tRPC reads it (`URLSearchParams`, the first of repeated keys). */
function searchOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
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
  // Prepared JSON is the wire text only when no transformer rewrites the data.
  const writesDataAsIs = config.transformer === defaultTransformer;
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
    const search = searchOf(request.url);
    const batch = search.get('batch') === '1';
    const text = get ? search.get('input') : request.body;
    const ctx = createContext(request);
    // Read when the procedure asks, as tRPC does: a procedure without input ignores bad text.
    let input: unknown;
    let answer: unknown;
    try {
      const data = await procedure({
        path,
        getRawInput: async () => {
          input = inputOf(text, batch);
          return input;
        },
        ctx,
        type,
        signal: undefined,
        batchIndex: 0,
      });
      const prepared = writesDataAsIs ? preparedAnswer(data, batch) : undefined;
      if (prepared !== undefined) return send(reply, 200, prepared);
      answer = { result: { data } };
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
function send(reply: FastifyReply, status: number, body: Buffer): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .header('vary', 'trpc-accept, accept')
    .send(body);
}

/** A prepared output's answers as bytes, plain and as a batch of one, kept while it lives. */
const preparedAnswers = new WeakMap<object, { plain?: Buffer; batch?: Buffer }>();

/**
 * `{"result":{"data":…}}` (in an array for a batch) around prepared `data`'s own JSON, made once
 * per output: prepared output is read-only, so the 20 readers of one pending state are each
 * sent the same 4 MB rather than each copying it; undefined for data that was not prepared.
 */
function preparedAnswer(data: unknown, batch: boolean): Buffer | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const form = batch ? 'batch' : 'plain';
  let answers = preparedAnswers.get(data);
  const kept = answers?.[form];
  if (kept !== undefined) return kept;
  const json = preparedJson(data);
  if (json === undefined) return undefined;
  const result = `{"result":{"data":${json}}}`;
  const bytes = Buffer.from(batch ? `[${result}]` : result);
  if (answers === undefined) {
    answers = {};
    preparedAnswers.set(data, answers);
  }
  answers[form] = bytes;
  return bytes;
}
