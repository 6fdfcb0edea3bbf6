import type { Operator } from '@mgpu/api';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import type { ConsoleAccess } from '../identity/console-token.js';
import { admitCounted } from '../identity/counted-admission.js';
import { setSessionCookie } from '../identity/session-cookie.js';
import type { SignInThrottle } from '../identity/sign-in-throttle.js';
import { subscriptionInput } from '../trpc/sse-transport.js';
import { notJudgedYet, refuse, tooManyWrongTokens } from './replies.js';

export interface AllowedOrigins {
  /** `Host` header values this console answers to (DNS rebinding is refused). */
  hosts: Set<string>;
  /** `Origin` values that may call mutations. */
  origins: Set<string>;
}

/** The console's own loopback names on its port, the listen address itself, and the extra origins. */
export function allowedOrigins(
  port: string,
  host: string,
  extra: readonly string[],
): AllowedOrigins {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  if (host !== '0.0.0.0' && host !== '::')
    hosts.add(host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
  const origins = new Set([...hosts].map((name) => `http://${name}`));
  for (const origin of extra) {
    const url = new URL(origin);
    hosts.add(url.host);
    origins.add(url.origin);
  }
  return { hosts, origins };
}

/** A state-changing request must come from one of the console's own origins (no CSRF). */
export function originCheck(allowed: () => AllowedOrigins) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const { origins } = allowed();
    const origin = request.headers.origin;
    if (origin !== undefined && origins.has(origin)) return undefined;
    const expected = [...origins][0] ?? '';
    request.log.warn({ origin }, 'mutation refused: Origin not allowed');
    return refuse(
      reply,
      403,
      'FORBIDDEN',
      origin
        ? `Origin ${origin} may not call mutations here; expected ${expected}.`
        : `Mutations need an Origin header such as ${expected} (browsers send it; scripts add -H 'Origin: ${expected}').`,
    );
  };
}

/**
 * Each subscription's input schema, read from the router itself: subscriptions answer over SSE
 * with status 200 before tRPC reads their input, so the guard checks it first — from the same
 * `.input()` the procedure declares, never a second list that could drift.
 */
export function subscriptionInputSchemas(router: AnyTRPCRouter): Map<string, ZodType> {
  // At run time `_def.procedures` is flat (`'allocations.watch'`), whatever its declared type.
  const procedures = router._def.procedures as unknown as Record<
    string,
    { _def: { type: string; inputs: unknown[] } }
  >;
  const schemas = new Map<string, ZodType>();
  for (const [path, procedure] of Object.entries(procedures)) {
    if (procedure._def.type !== 'subscription') continue;
    const [input, ...more] = procedure._def.inputs;
    // One `.input()` each, a zod schema: anything else would stream before being checked.
    if (more.length > 0 || typeof (input as ZodType | undefined)?.safeParse !== 'function')
      throw new Error(`subscription ${path} needs exactly one zod .input()`);
    schemas.set(path, input as ZodType);
  }
  return schemas;
}

/**
 * Guards every tRPC route: the Host must be this console's (no DNS rebinding), no page of another
 * site may drive it (`Sec-Fetch-Site: cross-site`), the credential when one is needed — wrong
 * bearer tokens counted against the address in every mode —, an allowed Origin on mutations
 * (browsers always send it on POST), and a subscription's input must parse before the stream opens.
 */
export function guardTrpc(
  router: AnyTRPCRouter,
  allowed: () => AllowedOrigins,
  access: ConsoleAccess,
  operators: WeakMap<FastifyRequest, Operator>,
  throttle: SignInThrottle,
) {
  const checkOrigin = originCheck(allowed);
  const subscriptionInputs = subscriptionInputSchemas(router);
  /** Whether cookies were answered 503 for unread sign-outs since it was last said they are read. */
  let cookiesWaiting = false;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { hosts } = allowed();
    if (!hosts.has(request.headers.host ?? '')) {
      return refuse(
        reply,
        421,
        'MISDIRECTED',
        `This console does not answer as ${request.headers.host ?? '(no Host)'}; start it with --allowed-origin for other names.`,
      );
    }
    // Without sign-in a page on any site could make a visitor's browser fire these GETs (each a
    // placement run); browsers say where a request comes from, and no page of ours is cross-site.
    if (request.headers['sec-fetch-site'] === 'cross-site') {
      request.log.warn('request refused: Sec-Fetch-Site cross-site');
      return refuse(
        reply,
        403,
        'FORBIDDEN',
        "Another site's page may not call this console (Sec-Fetch-Site: cross-site).",
      );
    }
    // Every bearer token presented is a guess until it is right: wrong ones count against the
    // address, and a locked address gets 429 whatever it presents (a guesser learns nothing).
    const admitted = await admitCounted(access, throttle, request);
    if (admitted.kind === 'throttled') return tooManyWrongTokens(reply, admitted.wait);
    if (admitted.kind === 'unavailable') {
      const { unavailable } = admitted;
      // As at browser sign-in: the token may well be good, the API server did not say.
      if (unavailable.reason === 'token-not-checked')
        request.log.warn(
          { reason: unavailable.message },
          'token not checked: API server unavailable',
        );
      else if (!cookiesWaiting) {
        // Once until the sign-outs are read: a Secret the account may not read is every request.
        cookiesWaiting = true;
        request.log.warn(
          'session cookies answered 503 until the sign-outs are read (bearer tokens work)',
        );
      }
      return notJudgedYet(reply, unavailable);
    }
    if (cookiesWaiting && access.signOutsRead) {
      cookiesWaiting = false;
      request.log.info('sign-outs read: session cookies are judged again');
    }
    if (admitted.kind === 'refused') {
      reply.header('www-authenticate', 'Bearer');
      return refuse(
        reply,
        401,
        'UNAUTHORIZED',
        access.operators
          ? 'This console needs your own Kubernetes identity: Authorization: Bearer <your Kubernetes token>, or sign in at /session; a session that ended or was never made is refused.'
          : 'This console needs a bearer token: Authorization: Bearer <token> (browsers sign in at /session).',
      );
    }
    if (admitted.operator) operators.set(request, admitted.operator);
    // The session's cookie sealed again (its last use, a refreshed token): the next request,
    // on whichever replica, carries on from here. A stream's answer is hijacked and sends none.
    const reissued = access.operators?.reissuedCookie(request);
    if (reissued !== undefined)
      setSessionCookie(
        reply,
        request,
        reissued,
        access.operators?.sessions.limits.absoluteSeconds ?? 0,
      );
    const procedure = (request.params as { path?: string }).path ?? '';
    // A subscription is a GET stream; any other method must not reach tRPC's own SSE producer.
    if (
      request.method !== 'GET' &&
      procedure.split(',').some((path) => subscriptionInputs.has(path))
    ) {
      reply.header('allow', 'GET');
      return refuse(
        reply,
        405,
        'METHOD_NOT_SUPPORTED',
        `${procedure} is a subscription: open it with GET (server-sent events).`,
      );
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      return checkOrigin(request, reply);
    }
    const schema = subscriptionInputs.get(procedure);
    if (schema !== undefined) {
      const read = subscriptionInput(request, procedure);
      if (!read.ok) return refuse(reply, 400, 'PARSE_ERROR', read.message);
      const parsed = schema.safeParse(read.input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return refuse(
          reply,
          400,
          'BAD_REQUEST',
          `Invalid input of ${procedure}: ${issue?.path.join('.') || '(input)'}: ${issue?.message ?? 'invalid'}`,
        );
      }
    }
  };
}
