import {
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
  type inferRouterContext,
  TRPCError,
} from '@trpc/server';
import {
  getErrorShape,
  getHTTPStatusCode,
  getTRPCErrorFromUnknown,
  transformTRPCResponse,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Mutations answered straight from Fastify's parsed request.
 *
 * tRPC's Fastify adapter turns every request into a fetch `Request` (URL, Headers, a body
 * stream read back into a string) and its answer into a `Response` that is streamed back out:
 * about 0.8 ms of a create's time on this machine, more than the rule check and the cluster
 * look-up together (issue 6 wants the BFF's overhead on a create under 5 ms). This transport
 * answers the calls a console makes — one mutation, plain (`POST /trpc/workload.create`, as
 * scripts send it) or as a batch of one (`?batch=1`, as `httpBatchLink` sends it) — by calling
 * the procedure itself with tRPC's own call options, so input and output validation, the error
 * formatter and the wire format are tRPC's. Anything else (several calls in one batch, streamed
 * batches, other content types) goes on to tRPC's adapter unchanged.
 */
export interface MutationTransportOptions<TRouter extends AnyTRPCRouter> {
  router: TRouter;
  /** The context of one request: who is signed in on it decides whose identity its calls use. */
  createContext: (request: FastifyRequest) => inferRouterContext<TRouter>;
  onError?: (error: TRPCError, path: string) => void;
}

/** `application/json`, with or without parameters, in any case (as tRPC matches it). */
const isJson = (contentType: string | undefined) =>
  contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/** The router's mutation procedures by path (`_def.procedures` is flat at run time). */
function mutationsOf(router: AnyTRPCRouter): Map<string, AnyTRPCProcedure> {
  const procedures = router._def.procedures as unknown as Record<string, AnyTRPCProcedure>;
  return new Map(
    Object.entries(procedures).filter(([, procedure]) => procedure._def.type === 'mutation'),
  );
}

/** The call's input: the body itself, or entry `0` of a batch of one; undefined for no body. */
function inputOf(body: unknown, batch: boolean): unknown {
  if (typeof body !== 'string' || body.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
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

/**
 * A `preHandler` hook for the scope of tRPC's routes (the body is parsed by then, and the
 * guard's `onRequest` checks have passed): answers a single mutation, lets anything else through.
 */
export function mutationHook<TRouter extends AnyTRPCRouter>(
  options: MutationTransportOptions<TRouter>,
): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const { router, createContext } = options;
  const mutations = mutationsOf(router);
  const config = router._def._config;
  return async (request, reply) => {
    if (request.method !== 'POST') return undefined;
    const path = (request.params as { path?: string }).path ?? '';
    const procedure = mutations.get(path);
    const query = request.query as Record<string, string | undefined>;
    // Streamed batches (`trpc-accept: application/jsonl`) keep tRPC's own producer.
    if (procedure === undefined || request.headers['trpc-accept'] !== undefined) return undefined;
    if (!isJson(request.headers['content-type'])) return undefined;
    const batch = query.batch === '1';
    const ctx = createContext(request);
    let input: unknown;
    let answer: unknown;
    try {
      input = inputOf(request.body, batch);
      const data = await procedure({
        path,
        getRawInput: async () => input,
        ctx,
        type: 'mutation',
        signal: undefined,
        batchIndex: 0,
      });
      answer = { result: { data } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      options.onError?.(error, path);
      answer = { error: getErrorShape({ config, ctx, error, input, path, type: 'mutation' }) };
    }
    const response = transformTRPCResponse(config, answer as never);
    const body = batch ? [response] : response;
    return (
      reply
        .code(getHTTPStatusCode(body as never))
        .header('content-type', 'application/json')
        .header('vary', 'trpc-accept, accept')
        // Bytes, not a string: Fastify would add `; charset=utf-8`, which tRPC does not send.
        .send(Buffer.from(JSON.stringify(body)))
    );
  };
}
