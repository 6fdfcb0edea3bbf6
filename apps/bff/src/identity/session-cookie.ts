import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie a browser holds once its operator signed in (EventSource sends no headers). */
export const SESSION_COOKIE = 'mgpu_console_session';

/**
 * A sealed session carries the operator's token (an OIDC ID token and refresh token can pass
 * 3 KB with many groups), and a browser keeps at most 4096 bytes per cookie: a longer value goes
 * in parts of `CHUNK_BYTES`, `mgpu_console_session`, `mgpu_console_session_1`, …
 */
const CHUNK_BYTES = 3600;
/**
 * Two parts at most: the whole Cookie header then stays under the 8 KB a proxy reads as one
 * header line (nginx's `large_client_header_buffers`), and a request under Node's 16 KB.
 */
export const SESSION_COOKIE_PARTS = 2;
/** The longest session value a browser can bring back. */
export const SESSION_COOKIE_MAX_BYTES = CHUNK_BYTES * SESSION_COOKIE_PARTS;

const partName = (index: number) => (index === 0 ? SESSION_COOKIE : `${SESSION_COOKIE}_${index}`);

/**
 * The session cookie's attributes: HttpOnly (page script never reads it), SameSite=Strict
 * (other sites' pages never send it), Secure when the browser reached the console over HTTPS.
 * `request.protocol` believes `X-Forwarded-Proto` only from a hop `--trust-proxy` names, so a
 * client cannot talk the console out of (or into) Secure cookies by sending the header itself.
 */
export function sessionCookieOptions(request: FastifyRequest) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
  } as const;
}

/** The session value a request brings, its parts joined; undefined without one. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const first = request.cookies[SESSION_COOKIE];
  if (first === undefined) return undefined;
  let value = first;
  for (let index = 1; index < SESSION_COOKIE_PARTS; index++) {
    const part = request.cookies[partName(index)];
    if (part === undefined) break;
    value += part;
  }
  return value;
}

/**
 * Sets the session cookie to `value` for `maxAgeSeconds`, in as many parts as it needs; parts a
 * longer earlier value left are cleared, so no stale tail joins the new value.
 */
export function setSessionCookie(
  reply: FastifyReply,
  request: FastifyRequest,
  value: string,
  maxAgeSeconds: number,
): void {
  const options = { ...sessionCookieOptions(request), maxAge: maxAgeSeconds };
  // Callers keep to SESSION_COOKIE_MAX_BYTES (BrowserSessions refuses a larger sign-in).
  const parts = Math.min(SESSION_COOKIE_PARTS, Math.max(1, Math.ceil(value.length / CHUNK_BYTES)));
  for (let index = 0; index < SESSION_COOKIE_PARTS; index++) {
    if (index < parts)
      reply.setCookie(
        partName(index),
        value.slice(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES),
        options,
      );
    else if (request.cookies[partName(index)] !== undefined)
      reply.clearCookie(partName(index), sessionCookieOptions(request));
  }
}

/** Signs the browser out: every part of its session cookie cleared. */
export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest): void {
  for (let index = 0; index < SESSION_COOKIE_PARTS; index++)
    if (index === 0 || request.cookies[partName(index)] !== undefined)
      reply.clearCookie(partName(index), sessionCookieOptions(request));
}
