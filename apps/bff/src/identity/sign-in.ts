import cookie from '@fastify/cookie';
import type { AuditEntry } from '@mgpu/api';
import type { FastifyInstance } from 'fastify';
import type { BffOptions } from '../bff-options.js';
import type { AllowedOrigins } from '../http/trpc-guard.js';
import type { ConsoleAccess } from './console-token.js';
import { registerOidcRoutes } from './oidc-routes.js';
import { OidcSignIn } from './oidc-sign-in.js';
import { sessionCookieOptions } from './session-cookie.js';
import { registerSessionRoutes } from './session-routes.js';
import type { SessionSeal } from './session-seal.js';
import type { SignInThrottle } from './sign-in-throttle.js';

/**
 * `--auth oidc`'s issuer, discovered before anything else starts: a console no operator could
 * sign in to says so at start. Undefined in the other modes.
 */
export async function oidcSignInFor(options: BffOptions): Promise<OidcSignIn | undefined> {
  if (options.auth !== 'oidc') return undefined;
  if (!options.oidc) throw new Error('--auth oidc needs --oidc-issuer and --oidc-client-id');
  return OidcSignIn.discover(options.oidc);
}

/** Every way in: cookies, `/session` in every mode, and `--auth oidc`'s login and callback. */
export async function registerSignIn(
  app: FastifyInstance,
  parts: {
    access: ConsoleAccess;
    allowed: () => AllowedOrigins;
    throttle: SignInThrottle;
    audit: (entry: AuditEntry) => void;
    seal: SessionSeal;
    oidc: OidcSignIn | undefined;
  },
): Promise<void> {
  const { access, allowed, throttle, audit, seal, oidc } = parts;
  await app.register(cookie);
  registerSessionRoutes(app, access, allowed, throttle, audit);
  if (oidc === undefined || !access.operators) return;
  registerOidcRoutes(app, {
    signIn: oidc,
    seal,
    operators: access.operators,
    cookieOptions: sessionCookieOptions,
    knownHost: (host) => allowed().hosts.has(host ?? ''),
    throttle,
    audit,
  });
}
