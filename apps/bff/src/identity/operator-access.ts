import type { KubeConfig } from '@kubernetes/client-node';
import type { Operator } from '@mgpu/api';
import type { FastifyRequest } from 'fastify';
import {
  type BrowserSessions,
  type Resumed,
  SessionTooLargeError,
  SignOutsNotReadError,
} from './browser-sessions.js';
import { sessionCookieOf } from './session-cookie.js';
import { bearerKey, type SessionStore } from './sessions.js';
import { reviewToken, type TokenReview } from './token-review.js';

/** A script's bearer token is asked about again after this long (a revoked token stops soon). */
export const BEARER_REVIEW_SECONDS = 60;

/**
 * Why a credential is neither admitted nor refused now (503, asked again in a moment): the API
 * server did not answer about a bearer token, or a session cookie came before the sign-outs
 * were read (`SIGN_OUTS_NOT_READ`: a console starting, or one whose account may not read them).
 */
export type Unavailable =
  | { readonly reason: 'token-not-checked'; readonly message: string }
  | { readonly reason: 'sign-outs-not-read' };

/** What a request's credential came to: its operator, or why there is none. */
type BearerAdmission = Operator | { unavailable: Unavailable } | undefined;

/**
 * `--auth kubernetes`: who a request is. A browser's session cookie is a sealed session made at
 * sign-in (`BrowserSessions`, any replica with the key reads it); a script's `Authorization: Bearer` token is reviewed by the API server (and
 * the answer kept a minute under the token's digest, so not every call costs a review). A
 * stream opened with a bearer token has it reviewed again each minute (`recheckBearer`).
 */
export class OperatorAccess {
  /** One review per token at a time, however many requests and streams carry it. */
  private readonly reviewing = new Map<string, Promise<BearerAdmission>>();
  private readonly refusedListeners = new Set<(key: string) => void>();
  /** A newer session cookie for the answer to a request (its last use or token changed). */
  private readonly reissued = new WeakMap<FastifyRequest, string>();

  constructor(
    private readonly console: KubeConfig,
    /** Browser sessions, by cookie. */
    readonly sessions: BrowserSessions,
    /** Reviewed bearer tokens, by digest; limits of `BEARER_REVIEW_SECONDS`. */
    private readonly bearers: SessionStore,
  ) {}

  /**
   * The operator of a request; undefined when it carries no good session or token; `unavailable`
   * when its bearer token could not be asked about (the API server did not answer), or its
   * cookie before the sign-outs are read, which says nothing about either: a script gets 503
   * and tries again, not 401 and a new token.
   */
  async operatorOf(request: FastifyRequest): Promise<BearerAdmission> {
    const token = bearerTokenOf(request);
    if (token !== undefined) {
      const key = bearerKey(token);
      const known = await this.bearers.resume(key);
      return known ? known.operator : this.review(token, key);
    }
    let resumed: Resumed | undefined;
    try {
      resumed = await this.sessions.resume(sessionCookieOf(request), request);
    } catch (error) {
      // Possibly signed out before this replica started: asked again in a moment, not refused.
      if (error instanceof SignOutsNotReadError)
        return { unavailable: { reason: 'sign-outs-not-read' } };
      throw error;
    }
    if (resumed?.cookie !== undefined) this.reissued.set(request, resumed.cookie);
    return resumed?.session.operator;
  }

  /** The newer session cookie `operatorOf` made for this request, to send with its answer. */
  reissuedCookie(request: FastifyRequest): string | undefined {
    return this.reissued.get(request);
  }

  /**
   * What an open stream's bearer token is asked at each tick of the stream transport (it cannot
   * wait): within the minute of its last review nothing; past it the API server is asked again
   * in the background while the stream flows, and a refusal (a revoked token, a deleted service
   * account) is told to `onBearerRefused`, which ends the token's streams as a sign-out ends a
   * session's. An API server that does not answer ends nothing: the next tick asks again.
   */
  recheckBearer(token: string): void {
    const key = bearerKey(token);
    if (!this.bearers.live(key)) void this.review(token, key).catch(() => undefined);
  }

  /** Calls `listener` with the digest key (`bearerKey`) of every bearer token a review refused. */
  onBearerRefused(listener: (key: string) => void): void {
    this.refusedListeners.add(listener);
  }

  private review(token: string, key: string): Promise<BearerAdmission> {
    let pending = this.reviewing.get(key);
    if (pending === undefined) {
      pending = reviewToken(this.console, token)
        .then((review): BearerAdmission => {
          if (review.ok) return this.bearers.create({ ...review, token }, key).operator;
          if (review.reason === 'unavailable')
            return { unavailable: { reason: 'token-not-checked', message: review.message } };
          for (const listener of this.refusedListeners) listener(key);
          return undefined;
        })
        .finally(() => this.reviewing.delete(key));
      this.reviewing.set(key, pending);
    }
    return pending;
  }

  /**
   * `POST /session` and `--auth oidc`'s callback: a session exists only once the API server said
   * who the token is. `renewal`: an ID token's expiry and its refresh token.
   */
  async signIn(
    token: string,
    renewal: { expiresAt?: number; refreshToken?: string } = {},
  ): Promise<{
    review: TokenReview;
    signedIn?: Resumed & { cookie: string };
    /** Why a good token makes no session: too large for the browser to carry. */
    tooLarge?: string;
  }> {
    const review = await reviewToken(this.console, token);
    if (!review.ok) return { review };
    const { username, groups } = review;
    try {
      return {
        review,
        signedIn: await this.sessions.create({ username, groups, token, ...renewal }),
      };
    } catch (error) {
      if (error instanceof SessionTooLargeError) return { review, tooLarge: error.message };
      throw error;
    }
  }
}

/**
 * The token of `Authorization: Bearer <token>`, if the request has one — read as kube-apiserver
 * reads it and as `bearerCheck` compares it: the scheme in any case, one space, the token.
 */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^bearer (\S+)$/i.exec(header);
  return match?.[1];
}
