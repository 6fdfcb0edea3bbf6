import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyRequest } from 'fastify';
import type { Operator } from './operator.js';
import { bearerKey, type Session, type SessionGrant, type SessionStore } from './sessions.js';
import { reviewToken, type TokenReview } from './token-review.js';

/** A script's bearer token is asked about again after this long (a revoked token stops soon). */
export const BEARER_REVIEW_SECONDS = 60;

/**
 * `--auth kubernetes`: who a request is. A browser's session cookie names a server-side session
 * made at sign-in; a script's `Authorization: Bearer` token is reviewed by the API server (and
 * the answer kept a minute under the token's digest, so not every call costs a review).
 */
export class OperatorAccess {
  constructor(
    private readonly console: KubeConfig,
    /** Browser sessions, by cookie. */
    readonly sessions: SessionStore,
    /** Reviewed bearer tokens, by digest; limits of `BEARER_REVIEW_SECONDS`. */
    private readonly bearers: SessionStore,
  ) {}

  /**
   * The operator of a request; undefined when it carries no good session or token; `unavailable`
   * when its bearer token could not be asked about (the API server did not answer), which says
   * nothing about the token: a script gets 503 and tries again, not 401 and a new token.
   */
  async operatorOf(
    request: FastifyRequest,
    cookieName: string,
  ): Promise<Operator | { unavailable: string } | undefined> {
    const token = bearerTokenOf(request);
    if (token !== undefined) {
      const key = bearerKey(token);
      const known = await this.bearers.resume(key);
      if (known) return known.operator;
      const review = await reviewToken(this.console, token);
      if (review.ok) return this.bearers.create({ ...review, token }, key).operator;
      return review.reason === 'unavailable' ? { unavailable: review.message } : undefined;
    }
    return (await this.sessions.resume(request.cookies[cookieName]))?.operator;
  }

  /**
   * `POST /session` and `--auth oidc`'s callback: a session exists only once the API server said
   * who the token is. `renewal`: an ID token's expiry and its refresh grant.
   */
  async signIn(
    token: string,
    renewal: Pick<SessionGrant, 'expiresAt' | 'refresh'> = {},
  ): Promise<{ review: TokenReview; session?: Session }> {
    const review = await reviewToken(this.console, token);
    if (!review.ok) return { review };
    return { review, session: this.sessions.create({ ...review, token, ...renewal }) };
  }
}

/** The token of `Authorization: Bearer <token>`, if the request has one. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer +(\S+)\s*$/i.exec(header);
  return match?.[1];
}
