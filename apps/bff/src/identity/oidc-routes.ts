import type { AuditEntry } from '@mgpu/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type OidcSignIn,
  OidcSignInError,
  PENDING_SIGN_IN_MS,
  type PendingSignIn,
  sameOriginPath,
} from './oidc-sign-in.js';
import type { OperatorAccess } from './operator-access.js';
import {
  clearSessionCookie,
  sessionCookieOf,
  type sessionCookieOptions,
  setSessionCookie,
} from './session-cookie.js';
import type { SessionSeal } from './session-seal.js';
import { bearerKey } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';

/**
 * Binds a sign-in to the browser that started it (login CSRF): the sign-in itself (state, nonce,
 * PKCE verifier), sealed, for the callback only — any replica with the key finishes it.
 */
export const OIDC_STATE_COOKIE = 'mgpu_console_oidc_state';

export interface OidcRoutesOptions {
  signIn: OidcSignIn;
  operators: OperatorAccess;
  /** The session cookie's attributes for this request (`sessionCookieOptions`). */
  cookieOptions: typeof sessionCookieOptions;
  /** Whether the request's Host is one this console answers as (no DNS rebinding). */
  knownHost: (host: string | undefined) => boolean;
  /** Refused callbacks count against the address like wrong tokens at `/session`. */
  throttle: SignInThrottle;
  /** Seals the sign-in into its cookie. */
  seal: SessionSeal;
  audit: (entry: AuditEntry) => void;
}

/** A URL of the console as the browser reached it, from its (checked) Host. */
function consoleUrlOf(request: FastifyRequest, secure: boolean, path: string): string {
  return `${secure ? 'https' : 'http'}://${request.headers.host ?? ''}${path}`;
}

const callbackUrlOf = (request: FastifyRequest, secure: boolean) =>
  consoleUrlOf(request, secure, '/auth/callback');

const page = (reply: FastifyReply, status: number, message: string) =>
  reply
    .code(status)
    .type('text/plain; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`${message}\nSign in again: /auth/login`);

/**
 * `--auth oidc`'s browser sign-in. `GET /auth/login?returnTo=/path` sends the browser to the
 * issuer (authorization code + PKCE); `GET /auth/callback` exchanges the code, has the API server
 * say who the ID token is (so a token kube-apiserver would refuse makes no session), creates the
 * session with the refresh grant attached and goes back to `returnTo`, a path of this console.
 * `GET /auth/logout` (the web app's sign-out) ends the console's session and the issuer's: the
 * browser goes to the issuer's end-session page and from there back to the console's sign-in
 * page, so the next sign-in asks for the password again. `DELETE /session` ends the console's
 * session only, as in every mode.
 */
export function registerOidcRoutes(app: FastifyInstance, options: OidcRoutesOptions): void {
  const { signIn, operators, cookieOptions, knownHost, throttle, audit, seal } = options;
  const misdirected = (request: FastifyRequest, reply: FastifyReply) =>
    knownHost(request.headers.host)
      ? undefined
      : page(reply, 421, 'This console does not answer under that name.');

  app.get('/auth/login', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    const { returnTo } = request.query as { returnTo?: unknown };
    const secure = cookieOptions(request).secure;
    const { url, pending } = await signIn.start(
      callbackUrlOf(request, secure),
      sameOriginPath(returnTo),
    );
    const sealed = await seal.seal('oidc-sign-in', pending, pending.startedAt + PENDING_SIGN_IN_MS);
    // Lax, not Strict: the issuer's redirect back is a navigation from another site.
    reply.setCookie(OIDC_STATE_COOKIE, sealed, {
      path: '/auth/callback',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: PENDING_SIGN_IN_MS / 1000,
    });
    return reply.header('cache-control', 'no-store').redirect(url.href, 302);
  });

  /**
   * The callback past the throttle; `refused` says the code or ID token was a guess (the issuer
   * or the API server refused it), not that either could not be asked.
   */
  const finishSignIn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    refused: () => void,
  ) => {
    const secure = cookieOptions(request).secure;
    reply.clearCookie(OIDC_STATE_COOKIE, { path: '/auth/callback', secure });
    const current = new URL(request.url, callbackUrlOf(request, secure));
    let issued: Awaited<ReturnType<OidcSignIn['finish']>>;
    try {
      const pending = await seal.unseal('oidc-sign-in', request.cookies[OIDC_STATE_COOKIE]);
      issued = await signIn.finish(current, pending as PendingSignIn | undefined);
    } catch (error) {
      const known = error instanceof OidcSignInError;
      request.log.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'OIDC sign-in refused',
      );
      // A wrong state or a code the issuer refused is a guess; the issuer being down is not.
      if (known || (error as { error?: unknown } | null)?.error === 'invalid_grant') refused();
      audit({ user: null, groups: [], procedure: 'session.sign-in', outcome: '401', status: 401 });
      return page(
        reply,
        401,
        known
          ? error.message
          : `The issuer's answer was not accepted (${error instanceof Error ? error.message : 'invalid'}).`,
      );
    }
    const { review, signedIn, tooLarge } = await operators.signIn(issued.idToken, {
      expiresAt: issued.expiresAt,
      ...(issued.refreshToken ? { refreshToken: issued.refreshToken } : {}),
    });
    if (tooLarge !== undefined) {
      audit({ user: null, groups: [], procedure: 'session.sign-in', outcome: '400', status: 400 });
      return page(reply, 400, tooLarge);
    }
    if (signedIn === undefined) {
      const unavailable = !review.ok && review.reason === 'unavailable';
      request.log.warn(
        unavailable ? { reason: review.message } : {},
        'OIDC sign-in refused by the API server',
      );
      if (!unavailable) refused();
      audit({
        user: null,
        groups: [],
        procedure: 'session.sign-in',
        outcome: unavailable ? '503' : '401',
        status: unavailable ? 503 : 401,
      });
      return unavailable
        ? page(reply, 503, 'The Kubernetes API server could not check the sign-in; try again.')
        : page(
            reply,
            401,
            `The Kubernetes API server did not accept the ID token of ${signIn.issuer}: it must be started with --oidc-issuer-url=${signIn.issuer} and --oidc-client-id of this console.`,
          );
    }
    setSessionCookie(reply, request, signedIn.cookie, operators.sessions.limits.absoluteSeconds);
    const { username, groups } = signedIn.session.operator;
    audit({ user: username, groups, procedure: 'session.sign-in', outcome: 'ok', status: 200 });
    return reply.header('cache-control', 'no-store').redirect(issued.returnTo, 302);
  };

  app.get('/auth/callback', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    // A callback carries a credential (a code, an ID token to come): reserved while the issuer
    // and the API server are asked, as a bearer token is, so guesses sent at once get `limit`.
    const { code } = request.query as { code?: unknown };
    const credential = bearerKey(`oidc code ${typeof code === 'string' ? code : ''}`);
    const wait = throttle.begin(request.ip, credential);
    if (wait > 0)
      return page(
        reply.header('retry-after', String(wait)),
        429,
        `Too many failed sign-ins from this address; try again in ${wait} s.`,
      );
    let wrong = false;
    try {
      return await finishSignIn(request, reply, () => {
        wrong = true;
      });
    } finally {
      throttle.end(request.ip, credential, wrong);
    }
  });

  app.get('/auth/logout', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    const options = cookieOptions(request);
    const id = sessionCookieOf(request);
    // Only this console's own pages send the cookie here (SameSite=Strict): a link on another
    // site signs nobody out of the console, and at the issuer the operator is asked.
    const operator = await operators.sessions.end(id);
    clearSessionCookie(reply, request);
    audit({
      user: operator?.username ?? null,
      groups: operator?.groups ?? [],
      procedure: 'session.sign-out',
      outcome: 'ok',
      status: 200,
    });
    const signInPage = consoleUrlOf(request, options.secure, '/');
    const atIssuer = signIn.endSessionUrl(operator?.token, signInPage);
    return reply.header('cache-control', 'no-store').redirect(atIssuer?.href ?? '/', 302);
  });
}
