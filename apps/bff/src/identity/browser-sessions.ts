import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { type Revocations, revocationKey, SIGN_OUTS_NOT_READ } from '../replicas/revocations.js';
import { SESSION_COOKIE_MAX_BYTES } from './session-cookie.js';
import type { SessionSeal } from './session-seal.js';
import {
  newSessionId,
  type Session,
  type SessionGrant,
  type SessionLimits,
  type SessionStore,
} from './sessions.js';

/** Renews an operator's token with a refresh token (`--auth oidc`'s refresh grant). */
export type TokenRenewal = (
  refreshToken: string,
) => Promise<{ token: string; expiresAt?: number; refreshToken?: string }>;

/** What a browser's sealed session cookie carries; only consoles holding the key read it. */
interface SessionClaims {
  sid: string;
  tok: string;
  usr: string;
  grp: string[];
  /** Signed in at (epoch ms). */
  iat: number;
  /** Last used at, as of the cookie's sealing. */
  lst: number;
  /** The token's expiry, when it has one (an ID token's). */
  tex?: number;
  /** The refresh token (`--auth oidc` with `offline_access`). */
  rft?: string;
  /** When the seal ends (epoch ms): the session's absolute end as of its sign-in. */
  exp?: number;
}

/** Who signed out, from their cookie (this replica may never have seen the session). */
export interface SignedOut {
  username: string;
  groups: readonly string[];
  /** Their token: the ID token `/auth/logout` hands the issuer as `id_token_hint`. */
  token: string;
}

/** A session the browser could not carry: its cookie would pass `SESSION_COOKIE_MAX_BYTES`. */
export class SessionTooLargeError extends Error {
  constructor(bytes: number) {
    super(
      `The sign-in is too large for a browser to keep (${bytes} bytes sealed, at most ${SESSION_COOKIE_MAX_BYTES}): the identity has too many groups or too long a token. Ask the issuer for fewer claims (e.g. without the groups scope).`,
    );
  }
}

/** A session's cookie before the sign-outs are read: neither good nor bad yet (503, not 401). */
export class SignOutsNotReadError extends Error {
  constructor() {
    super(SIGN_OUTS_NOT_READ);
  }
}

/**
 * A cookie whose last-use time is older than this is sealed again with the new one: at most a
 * minute, and a quarter of the idle limit, so another replica never takes a session in use for
 * idle.
 */
const RESEAL_AFTER_MS = 60_000;
/**
 * Cookies already unsealed, by a digest of their value: most requests cost a map lookup, not a
 * decryption. A few thousand are the sessions in use at once; past that it starts again.
 */
const OPENED_MAX = 2_000;
const openedKey = (cookie: string) => createHash('sha256').update(cookie).digest('base64url');

const claimsOf = (value: Record<string, unknown> | undefined): SessionClaims | undefined => {
  if (value === undefined) return undefined;
  const { sid, tok, usr, grp, iat, lst } = value;
  const valid =
    typeof sid === 'string' &&
    typeof tok === 'string' &&
    typeof usr === 'string' &&
    Array.isArray(grp) &&
    grp.every((group) => typeof group === 'string') &&
    typeof iat === 'number' &&
    typeof lst === 'number';
  return valid ? (value as unknown as SessionClaims) : undefined;
};

/** The session a request resumed, and a newer cookie to send back when there is one. */
export interface Resumed {
  session: Session;
  cookie?: string;
}

/**
 * Browser sessions any console with the same key accepts (issue 30): the cookie is the session,
 * sealed (`SessionSeal`) — the operator's token, who they are, when they signed in and last
 * used it, a refresh token —, and this console keeps only a cache of the sessions it has seen
 * (`SessionStore`: idle and absolute limits, token refresh, the operator's clients). A sign-out
 * is a revocation (`Revocations`) every replica refuses. A session used on this console carries
 * on where another left it: its last use, its refreshed token, both from the cookie, which is
 * sealed again when they change (at most once a minute for the last use alone).
 */
export class BrowserSessions {
  private readonly opened = new Map<string, SessionClaims>();
  /** The newest claims of each session this console knows, by id. */
  private readonly newest = new Map<string, SessionClaims>();
  /** Which session each admitted request is (its streams end with it). */
  private readonly ofRequest = new WeakMap<FastifyRequest, string>();

  constructor(
    private readonly local: SessionStore,
    private readonly seal: SessionSeal,
    private readonly revocations: Revocations,
    private readonly renew?: TokenRenewal,
    private readonly now: () => number = Date.now,
  ) {
    local.onEnd((id) => this.newest.delete(id));
    // Signed out on another replica: ended here too (its streams close).
    revocations.onRevoked((key) => {
      for (const id of [...this.newest.keys()]) if (revocationKey(id) === key) local.end(id);
    });
  }

  get limits(): SessionLimits {
    return this.local.limits;
  }

  /** A new session for a proven identity, and its cookie. */
  async create(
    grant: Omit<SessionGrant, 'refresh'> & { refreshToken?: string },
  ): Promise<Resumed & { cookie: string }> {
    const now = this.now();
    const claims: SessionClaims = {
      sid: newSessionId(),
      tok: grant.token,
      usr: grant.username,
      grp: [...grant.groups],
      iat: now,
      lst: now,
      ...(grant.expiresAt !== undefined ? { tex: grant.expiresAt } : {}),
      ...(grant.refreshToken !== undefined ? { rft: grant.refreshToken } : {}),
    };
    const cookie = await this.sealed(claims);
    if (cookie.length > SESSION_COOKIE_MAX_BYTES) throw new SessionTooLargeError(cookie.length);
    return { session: this.adopt(claims), cookie };
  }

  /**
   * The live session of a cookie — its idle time reset, its token refreshed when close to
   * expiry —, with a newer cookie when it changed; undefined when the cookie is not a session of
   * this key, or it ended (signed out anywhere, idle, too old, its token expired unrenewed).
   * Throws `SignOutsNotReadError` for a session's cookie while the sign-outs are not read.
   */
  async resume(cookie: string | undefined, request?: FastifyRequest): Promise<Resumed | undefined> {
    const claims = await this.open(cookie);
    if (claims === undefined) return undefined;
    if (!this.revocations.ready) throw new SignOutsNotReadError();
    if (this.revocations.revoked(claims.sid)) return undefined;
    const known = this.newest.get(claims.sid);
    // Refreshed on another replica since this one saw it: the cookie's token is the newer.
    // (Replacing the cache entry is no sign-out: the session's streams go on.)
    if (known === undefined || (claims.tex ?? 0) > (known.tex ?? 0)) this.adopt(claims);
    // Used on another replica since this one last saw it: its idle time counts from there.
    else this.local.usedAt(claims.sid, claims.lst);
    const session = await this.local.resume(claims.sid);
    if (session === undefined) return undefined;
    if (request) this.ofRequest.set(request, claims.sid);
    const current = this.newest.get(claims.sid) ?? claims;
    const changed =
      current.tok !== claims.tok ||
      current.rft !== claims.rft ||
      session.lastUsedAt - claims.lst >=
        Math.min(RESEAL_AFTER_MS, (this.local.limits.idleSeconds * 1000) / 4);
    if (!changed) return { session };
    const next = { ...current, lst: session.lastUsedAt };
    this.newest.set(claims.sid, next);
    const resealed = await this.sealed(next);
    // A refreshed token too large for the browser: the cookie it has still opens the session.
    return resealed.length > SESSION_COOKIE_MAX_BYTES ? { session } : { session, cookie: resealed };
  }

  /**
   * Signs out everywhere: every replica refuses the cookie from now on (within seconds), until
   * its seal would have ended anyway. Who it was comes from the cookie, not this replica's cache.
   */
  async end(cookie: string | undefined): Promise<SignedOut | undefined> {
    const claims = await this.open(cookie);
    if (claims === undefined) return undefined;
    const latest = this.newest.get(claims.sid) ?? claims;
    const until = claims.exp ?? claims.iat + this.local.limits.absoluteSeconds * 1000;
    this.local.end(claims.sid);
    await this.revocations.revoke(claims.sid, until);
    return { username: latest.usr, groups: latest.grp, token: latest.tok };
  }

  /** The session an admitted request resumed (streams ask, tick by tick). */
  sessionIdOf(request: FastifyRequest): string | undefined {
    return this.ofRequest.get(request);
  }

  /** Whether the session still stands, without using it (an open stream's question). */
  live(id: string): boolean {
    if (this.revocations.revoked(id)) {
      this.local.end(id);
      return false;
    }
    return this.local.live(id);
  }

  /** Called with the id of every session that ends here, however it ends. */
  onEnd(listener: (id: string) => void): void {
    this.local.onEnd(listener);
  }

  /** Sessions this console holds now. */
  get size(): number {
    return this.local.size;
  }

  /** The claims of a cookie sealed with this key, unsealed once per value. */
  private async open(cookie: string | undefined): Promise<SessionClaims | undefined> {
    if (cookie === undefined || cookie === '') return undefined;
    const key = openedKey(cookie);
    const cached = this.opened.get(key);
    // The seal's end is checked again: a cached cookie expires as its sealed text does.
    if (cached !== undefined) return (cached.exp ?? 0) > this.now() ? cached : undefined;
    const claims = claimsOf(await this.seal.unseal('session', cookie, this.now()));
    if (claims === undefined) return undefined;
    this.remember(key, claims);
    return claims;
  }

  private async sealed(claims: SessionClaims): Promise<string> {
    const expiresAt = claims.exp ?? claims.iat + this.local.limits.absoluteSeconds * 1000;
    const cookie = await this.seal.seal('session', { ...claims, exp: expiresAt }, expiresAt);
    this.remember(openedKey(cookie), { ...claims, exp: expiresAt });
    return cookie;
  }

  private remember(key: string, claims: SessionClaims): void {
    if (this.opened.size >= OPENED_MAX) this.opened.clear();
    this.opened.set(key, claims);
  }

  /** This console's cache entry for a session, with its refresh through `renew`. */
  private adopt(claims: SessionClaims): Session {
    this.newest.set(claims.sid, claims);
    const { renew } = this;
    const refresh =
      claims.rft !== undefined && renew !== undefined
        ? async () => {
            const latest = this.newest.get(claims.sid) ?? claims;
            const renewed = await renew(latest.rft ?? '');
            // Issuers may rotate the refresh token: the cookie carries the newest.
            const { tex: _expired, ...rest } = latest;
            this.newest.set(claims.sid, {
              ...rest,
              tok: renewed.token,
              ...(renewed.expiresAt !== undefined ? { tex: renewed.expiresAt } : {}),
              rft: renewed.refreshToken ?? latest.rft,
            });
            return renewed;
          }
        : undefined;
    return this.local.create(
      {
        token: claims.tok,
        username: claims.usr,
        groups: claims.grp,
        ...(claims.tex !== undefined ? { expiresAt: claims.tex } : {}),
        ...(refresh ? { refresh } : {}),
      },
      claims.sid,
      { createdAt: claims.iat, lastUsedAt: claims.lst },
    );
  }
}
