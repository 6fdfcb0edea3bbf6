import type { FastifyRequest } from 'fastify';

/** The cookie a browser holds once its operator signed in (EventSource sends no headers). */
export const SESSION_COOKIE = 'mgpu_console_session';

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
