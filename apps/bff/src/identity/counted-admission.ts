import type { Operator } from '@mgpu/api';
import type { FastifyRequest } from 'fastify';
import type { ConsoleAccess } from './console-token.js';
import { bearerTokenOf, type Unavailable } from './operator-access.js';
import { bearerKey } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';

/** What a request's credential came to, the throttle included. */
export type CountedAdmission =
  | { readonly kind: 'admitted'; readonly operator?: Operator }
  | { readonly kind: 'refused' }
  | { readonly kind: 'throttled'; readonly wait: number }
  | { readonly kind: 'unavailable'; readonly unavailable: Unavailable };

/**
 * The credential check of `/trpc` and `GET /session` alike, so neither is a door around the
 * throttle: a bearer token presented while sign-in is required is counted — reserved while the
 * API server is asked, a failure when it is wrong — and refused with 429 from an address over
 * the limit. A cookie is no guess (its value is a MAC under a key never sent), so it is not.
 */
export async function admitCounted(
  access: ConsoleAccess,
  throttle: SignInThrottle,
  request: FastifyRequest,
): Promise<CountedAdmission> {
  const bearer = access.required ? bearerTokenOf(request) : undefined;
  const credential = bearer === undefined ? undefined : bearerKey(bearer);
  if (credential !== undefined) {
    const wait = throttle.begin(request.ip, credential);
    if (wait > 0) return { kind: 'throttled', wait };
  }
  let wrong = false;
  try {
    const admission = access.admit(request);
    const admitted = admission instanceof Promise ? await admission : admission;
    if (admitted === undefined) {
      wrong = true;
      return { kind: 'refused' };
    }
    if (admitted.unavailable !== undefined)
      return { kind: 'unavailable', unavailable: admitted.unavailable };
    return admitted.operator
      ? { kind: 'admitted', operator: admitted.operator }
      : { kind: 'admitted' };
  } finally {
    if (credential !== undefined) throttle.end(request.ip, credential, wrong);
  }
}
