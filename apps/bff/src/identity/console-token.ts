import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Operator } from '@mgpu/api';
import { bearerCheck } from '@mgpu/kube-client';
import type { FastifyRequest } from 'fastify';
import { LocalRevocations, type Revocations } from '../replicas/revocations.js';
import type { OperatorAccess, Unavailable } from './operator-access.js';
import { sessionCookieOf } from './session-cookie.js';
import { SessionSeal } from './session-seal.js';

/** Per-user sign-in modes (spec §8): a Kubernetes token typed in, or through an OIDC issuer. */
export type AuthMode = 'kubernetes' | 'oidc';

/**
 * The shortest `--token` the console accepts (spec §9): an empty one must never mean "no
 * sign-in", and a short one is guessed in an afternoon even at the throttle's ten a minute.
 */
export const MIN_CONSOLE_TOKEN_LENGTH = 16;

/** Why `token` cannot be the console's token, or undefined when it can. */
export function consoleTokenProblem(token: string): string | undefined {
  if (token.length === 0) return 'is empty (an empty token would turn sign-in off)';
  // A header never carries them (Node trims it): a Secret's trailing newline would lock all out.
  if (/[\s\p{Cc}]/u.test(token))
    return 'has a space, a newline or a control character, which no Authorization header can carry';
  if (token.length < MIN_CONSOLE_TOKEN_LENGTH)
    return `has ${token.length} characters; it needs at least ${MIN_CONSOLE_TOKEN_LENGTH} (e.g. openssl rand -hex 24)`;
  return undefined;
}

/**
 * The token typed at `/session` (a string decoded from JSON, any length and script), compared as
 * HMACs under a per-process key: equal lengths, so no early return tells a length. Sign-ins are
 * few and throttled; the per-request checks compare bytes made once instead.
 */
const COMPARISON_KEY = randomBytes(32);
const digestOf = (value: string) => createHmac('sha256', COMPARISON_KEY).update(value).digest();
const sameSecret = (given: string | undefined, expected: string) =>
  timingSafeEqual(digestOf(given ?? ''), digestOf(expected));

/** A session cookie's MAC (base64url of a SHA-256, always 43 characters: no secret length). */
const sameMac = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/** Who an admitted request is: `operator` is set with per-user auth only. */
export type Admission =
  | { readonly operator?: Operator; readonly unavailable?: undefined }
  | { readonly unavailable: Unavailable; readonly operator?: undefined };
const NO_OPERATOR: Admission = Object.freeze({});
const SIGN_OUTS_UNKNOWN: Admission = Object.freeze({
  unavailable: Object.freeze({ reason: 'sign-outs-not-read' }),
});

/**
 * What is needed to call `/trpc`: nothing, the console's `--token`, or (with `--auth`) the
 * operator's own identity through `OperatorAccess`.
 *
 * With `--token`, scripts send `Authorization: Bearer <token>` and a browser signs in once at
 * `/session` for a cookie (EventSource sends no headers). The cookie holds its issue time, a
 * random nonce and an HMAC of both under a key made from the token and the session key
 * (`--session-key-file`, else one of this process) — never the token. It stops working when the
 * token changes, when the session key changes (without a key file: when the process restarts),
 * after `maxAgeSeconds`, and at once when it is signed out (`signOut` revokes its nonce on
 * every replica until the cookie would have expired anyway).
 */
export class ConsoleAccess {
  /** `Authorization: Bearer <token>`, checked on bytes made once (a request allocates nothing). */
  private readonly bearer: ((authorization: string | undefined) => boolean) | undefined;
  /** The cookie MAC's keys, one per session key (the first signs, each verifies). */
  private readonly sessionKeys: readonly Buffer[];

  constructor(
    readonly token: string | undefined,
    readonly maxAgeSeconds: number,
    /** `--auth kubernetes` or `oidc`: operators' own tokens instead of the console's one token. */
    readonly operators?: OperatorAccess,
    readonly authMode: AuthMode = 'kubernetes',
    seal: SessionSeal = SessionSeal.ephemeral(),
    /** Signed-out sessions' nonces, shared with the other replicas. */
    private readonly revocations: Revocations = new LocalRevocations(),
  ) {
    const problem = token === undefined ? undefined : consoleTokenProblem(token);
    if (problem !== undefined) throw new Error(`--token ${problem}`);
    this.bearer = token === undefined ? undefined : bearerCheck(token);
    this.sessionKeys = seal.macKeys.map((key) =>
      createHmac('sha256', key)
        .update(token ?? '')
        .digest(),
    );
  }

  get required(): boolean {
    return this.token !== undefined || this.operators !== undefined;
  }

  /**
   * What `/session` adds for the sign-in page with per-user auth: which sign-in this console
   * wants. Without it the answer stays `{ required, signedIn }` (a required one is the token).
   */
  get mode(): { mode?: AuthMode } {
    return this.operators ? { mode: this.authMode } : {};
  }

  /**
   * Whether the request may call `/trpc`, and as whom: `operator` is set with per-user auth.
   * Absent per-user auth this is the token check, answered synchronously: a request then costs
   * no promise, no operator and no review. `unavailable`: neither admitted nor refused yet (a
   * bearer token the API server could not be asked about, a cookie before the sign-outs are read).
   */
  admit(request: FastifyRequest): Admission | undefined | Promise<Admission | undefined> {
    if (this.operators === undefined) {
      if (this.grants(request))
        return this.signOutsUnknown(request) ? SIGN_OUTS_UNKNOWN : NO_OPERATOR;
      return undefined;
    }
    return this.operators
      .operatorOf(request)
      .then((operator) =>
        operator === undefined ? undefined : 'unavailable' in operator ? operator : { operator },
      );
  }

  /**
   * Whether the request came in on a session cookie while the sign-outs are not read: it may be
   * one signed out before this replica started (a bearer token is the token itself, so it is not).
   */
  private signOutsUnknown(request: FastifyRequest): boolean {
    if (this.bearer === undefined || this.revocations.ready) return false;
    return !this.bearer(request.headers.authorization);
  }

  /** Whether every sign-out made before this replica started is known, so cookies can be judged. */
  get signOutsRead(): boolean {
    return this.revocations.ready;
  }

  /** Whether `token` is the console's token (`POST /session`), in constant time. */
  isConsoleToken(token: string): boolean {
    return this.token !== undefined && sameSecret(token, this.token);
  }

  private sign(issuedAt: string, nonce: string, key = this.sessionKeys[0]): string {
    return createHmac('sha256', key ?? '')
      .update(`mgpu-console session v3 ${issuedAt} ${nonce}`)
      .digest('base64url');
  }

  /** A new session cookie value, issued now; undefined when no token is needed. */
  newSession(now = Date.now()): string | undefined {
    if (this.token === undefined) return undefined;
    const issuedAt = String(now);
    const nonce = randomBytes(16).toString('base64url');
    return `${issuedAt}.${nonce}.${this.sign(issuedAt, nonce)}`;
  }

  /**
   * The session a cookie value stands for — its nonce and issue time — when it is exactly three
   * parts signed here, else undefined. The nonce, not the text, names the session: a signed-out
   * value with anything appended is still that session, and still refused.
   */
  sessionOf(value: string | undefined): { nonce: string; issuedAt: number } | undefined {
    const parts = (value ?? '').split('.');
    const [issuedAt = '', nonce = '', mac = ''] = parts;
    const issued = /^\d{1,15}$/.test(issuedAt) ? Number(issuedAt) : Number.NaN;
    // Compared even when malformed, so the answer takes the same time either way.
    let signed = false;
    for (const key of this.sessionKeys)
      signed = sameMac(mac, this.sign(issuedAt, nonce, key)) || signed;
    const wellFormed = parts.length === 3 && /^[\w-]{22}$/.test(nonce) && Number.isFinite(issued);
    return signed && wellFormed ? { nonce, issuedAt: issued } : undefined;
  }

  /** Whether a `--token` session cookie is good now: signed here, young, not signed out. */
  validSession(value: string | undefined, now = Date.now()): boolean {
    const session = this.sessionOf(value);
    if (session === undefined) return false;
    const { issuedAt, nonce } = session;
    const fresh = issuedAt <= now + 60_000 && now - issuedAt < this.maxAgeSeconds * 1000;
    return fresh && !this.revocations.revoked(nonce);
  }

  /** `DELETE /session` with `--token`: that session is refused from now on, on every replica. */
  async signOut(value: string | undefined): Promise<void> {
    const session = this.sessionOf(value);
    if (session === undefined) return;
    await this.revocations.revoke(session.nonce, session.issuedAt + this.maxAgeSeconds * 1000);
  }

  /**
   * Called with the `revocationKey` of a session's nonce as it is signed out, here or on
   * another replica (its open streams end).
   */
  onSignOut(listener: (key: string) => void): void {
    this.revocations.onRevoked(listener);
  }

  grants(request: FastifyRequest): boolean {
    if (this.bearer === undefined) return true;
    return (
      this.bearer(request.headers.authorization) || this.validSession(sessionCookieOf(request))
    );
  }
}
