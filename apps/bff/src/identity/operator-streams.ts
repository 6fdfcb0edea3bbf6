import type { AppRouter } from '@mgpu/api';
import type { FastifyRequest } from 'fastify';
import type { BffOptions } from '../bff-options.js';
import { type Revocations, revocationKey } from '../replicas/revocations.js';
import type { SseTransport } from '../trpc/sse-transport.js';
import { BrowserSessions, type TokenRenewal } from './browser-sessions.js';
import type { ConsoleAccess } from './console-token.js';
import { BEARER_REVIEW_SECONDS, bearerTokenOf, OperatorAccess } from './operator-access.js';
import { sessionCookieOf } from './session-cookie.js';
import type { SessionSeal } from './session-seal.js';
import { bearerKey, DEFAULT_SESSION_LIMITS, SessionStore } from './sessions.js';

/**
 * With `--auth`: the operators' browser sessions (idle and absolute limits from the options),
 * sealed with the session key, signed out through the shared revocations, renewed by `renew`.
 */
export function browserSessionsFor(
  options: BffOptions,
  seal: SessionSeal,
  revocations: Revocations,
  renew?: TokenRenewal,
): BrowserSessions | undefined {
  if (!options.auth) return undefined;
  const local = new SessionStore(options.connection.kubeConfig, {
    ...DEFAULT_SESSION_LIMITS,
    ...(options.sessionMaxAgeSeconds ? { absoluteSeconds: options.sessionMaxAgeSeconds } : {}),
    ...options.sessionLimits,
  });
  return new BrowserSessions(local, seal, revocations, renew);
}

/** With `--auth`: operators' sessions, and scripts' bearer tokens reviewed once a minute. */
export function operatorAccessFor(
  options: BffOptions,
  sessions: BrowserSessions | undefined,
): OperatorAccess | undefined {
  if (sessions === undefined) return undefined;
  const reviewSeconds = options.bearerReviewSeconds ?? BEARER_REVIEW_SECONDS;
  return new OperatorAccess(
    options.connection.kubeConfig,
    sessions,
    new SessionStore(options.connection.kubeConfig, {
      idleSeconds: reviewSeconds,
      absoluteSeconds: reviewSeconds,
    }),
  );
}

/**
 * Whether an open stream is still let in, asked at each tick of the SSE transport: a session's
 * streams end with it (signed out, idle, too old) and the client reconnects into a 401. With
 * `--auth` a script's token is reviewed again once its minute is up (a refusal ends its streams
 * through `endStreamsOnSignOut`); with `--token` the header never changes, the cookie may.
 */
export function streamAdmission(
  access: ConsoleAccess,
  sessions: BrowserSessions | undefined,
): { stillAdmitted?: (request: FastifyRequest) => boolean } {
  if (sessions)
    return {
      stillAdmitted: (request) => {
        const bearer = bearerTokenOf(request);
        if (bearer !== undefined) {
          access.operators?.recheckBearer(bearer);
          return true;
        }
        const id = sessions.sessionIdOf(request);
        return id === undefined || sessions.live(id);
      },
    };
  // The same check as at admission: the header never changes, the cookie may be signed out.
  if (access.token !== undefined) return { stillAdmitted: (request) => access.grants(request) };
  return {};
}

/** Signed out (any mode), or a script's token refused on its review: its streams end at once. */
export function endStreamsOnSignOut(
  access: ConsoleAccess,
  sessions: BrowserSessions | undefined,
  subscriptions: SseTransport<AppRouter>,
): void {
  sessions?.onEnd((id) =>
    subscriptions.endStreams((request) => sessions.sessionIdOf(request) === id),
  );
  // `--token`: every stream that carries the session's cookie, whatever else it carries.
  access.onSignOut((key) =>
    subscriptions.endStreams((request) => {
      const session = access.sessionOf(sessionCookieOf(request));
      return session !== undefined && revocationKey(session.nonce) === key;
    }),
  );
  access.operators?.onBearerRefused((key) =>
    subscriptions.endStreams((request) => {
      const bearer = bearerTokenOf(request);
      return bearer !== undefined && bearerKey(bearer) === key;
    }),
  );
}
