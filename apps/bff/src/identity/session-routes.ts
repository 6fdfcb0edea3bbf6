import type { AuditEntry, Operator } from '@mgpu/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { refuse, signOutsNotRead, tokenNotChecked, tooManyWrongTokens } from '../http/replies.js';
import type { AllowedOrigins } from '../http/trpc-guard.js';
import { originCheck } from '../http/trpc-guard.js';
import type { ConsoleAccess } from './console-token.js';
import { admitCounted } from './counted-admission.js';
import { clearSessionCookie, sessionCookieOf, setSessionCookie } from './session-cookie.js';
import { bearerKey } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';

const SessionInputSchema = z.object({ token: z.string().min(1).max(4096) });

/**
 * `/session`: how the browser signs in. GET says which sign-in the console wants (`mode`), whether
 * this browser has signed in and, with per-user auth, as whom; POST `{ token }` sets the session
 * cookie (HttpOnly, SameSite=Strict: scripts on other sites can neither read nor send it) — with
 * `--auth kubernetes` only once the API server said who the token is; DELETE signs out, on every
 * replica too (the cookie's value is refused from then on and its open streams end). The Host
 * and Origin checks are the same as for `/trpc`.
 */
export function registerSessionRoutes(
  app: FastifyInstance,
  access: ConsoleAccess,
  allowed: () => AllowedOrigins,
  throttle: SignInThrottle,
  audit: (entry: AuditEntry) => void,
) {
  const checkOrigin = originCheck(allowed);
  const misdirected = (request: FastifyRequest, reply: FastifyReply) =>
    allowed().hosts.has(request.headers.host ?? '')
      ? undefined
      : refuse(reply, 421, 'MISDIRECTED', 'This console does not answer under that name.');
  const signInAudit = (
    procedure: 'session.sign-in' | 'session.sign-out',
    operator: Pick<Operator, 'username' | 'groups'> | undefined,
    status: number,
  ) =>
    audit({
      user: operator?.username ?? null,
      groups: operator?.groups ?? [],
      procedure,
      outcome: status === 200 ? 'ok' : String(status),
      status,
    });
  app.get('/session', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    reply.header('cache-control', 'no-store');
    // Counted as on `/trpc`: otherwise a bearer header here would test tokens without limit.
    const admitted = await admitCounted(access, throttle, request);
    if (admitted.kind === 'throttled') return tooManyWrongTokens(reply, admitted.wait);
    // Not "signed out": the sign-in form would make a cookie answered the same way (a loop).
    if (admitted.kind === 'unavailable' && admitted.unavailable.reason === 'sign-outs-not-read')
      return signOutsNotRead(reply);
    const operator = admitted.kind === 'admitted' ? admitted.operator : undefined;
    return {
      required: access.required,
      ...access.mode,
      signedIn: admitted.kind === 'admitted',
      ...(operator ? { username: operator.username, groups: operator.groups } : {}),
    };
  });
  app.post('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    const parsed = SessionInputSchema.safeParse(request.body);
    if (!parsed.success)
      return refuse(reply, 400, 'BAD_REQUEST', 'Send the token as JSON: { "token": "…" }.');
    if (!access.required) return { required: false, ...access.mode, signedIn: true };
    if (access.operators) {
      // Asked of the API server, so reserved while it is: parallel guesses get `limit` reviews.
      const credential = bearerKey(parsed.data.token);
      const wait = throttle.begin(request.ip, credential);
      if (wait > 0) return tooManyWrongTokens(reply, wait);
      const { review, signedIn, tooLarge } = await access.operators
        .signIn(parsed.data.token)
        .finally(() => throttle.end(request.ip, credential, false));
      if (!review.ok && review.reason === 'unavailable') {
        request.log.warn({ reason: review.message }, 'sign-in not checked: API server unavailable');
        signInAudit('session.sign-in', undefined, 503);
        return tokenNotChecked(reply, review.message);
      }
      if (tooLarge !== undefined) {
        signInAudit('session.sign-in', undefined, 400);
        return refuse(reply, 400, 'BAD_REQUEST', tooLarge);
      }
      if (signedIn === undefined) {
        throttle.failed(request.ip);
        request.log.warn('sign-in refused: the API server did not accept the token');
        signInAudit('session.sign-in', undefined, 401);
        return refuse(
          reply,
          401,
          'UNAUTHORIZED',
          'The Kubernetes API server did not accept that token (unknown, expired or revoked).',
        );
      }
      setSessionCookie(
        reply,
        request,
        signedIn.cookie,
        access.operators.sessions.limits.absoluteSeconds,
      );
      signInAudit('session.sign-in', signedIn.session.operator, 200);
      const { username, groups } = signedIn.session.operator;
      return { required: true, ...access.mode, signedIn: true, username, groups };
    }
    const wait = throttle.retryAfterSeconds(request.ip);
    if (wait > 0) return tooManyWrongTokens(reply, wait);
    if (!access.isConsoleToken(parsed.data.token)) {
      throttle.failed(request.ip);
      request.log.warn('sign-in refused: wrong token');
      return refuse(reply, 401, 'UNAUTHORIZED', "That is not this console's token.");
    }
    setSessionCookie(reply, request, access.newSession() ?? '', access.maxAgeSeconds);
    return { required: true, ...access.mode, signedIn: true };
  });
  app.delete('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    const cookieValue = sessionCookieOf(request);
    if (access.operators) {
      signInAudit('session.sign-out', await access.operators.sessions.end(cookieValue), 200);
    } else await access.signOut(cookieValue);
    clearSessionCookie(reply, request);
    return { required: access.required, ...access.mode, signedIn: !access.required };
  });
}
