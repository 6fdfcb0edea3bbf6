import { createHash, randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { type Operator, operatorKubeConfig } from '@mgpu/api';

/**
 * What a sign-in proved: the operator's bearer token and who the API server says it is. Every
 * way of signing in (`--auth kubernetes`'s `POST /session`, `--auth oidc`'s code exchange, a
 * script's `Authorization: Bearer`) ends in one of these.
 */
export interface SessionGrant {
  token: string;
  username: string;
  groups: readonly string[];
  /** When the token stops being good (epoch ms, e.g. an ID token's `exp`); the session ends then unless `refresh` renews it. */
  expiresAt?: number;
  /** Renews the token before `expiresAt` (an OIDC refresh grant); its answer replaces token and expiry. */
  refresh?: () => Promise<{ token: string; expiresAt?: number }>;
}

export interface Session {
  /** 256 random bits, base64url: the value of the session cookie. */
  readonly id: string;
  /** Replaced (a new object) when the token is refreshed, so clients cached by it follow. */
  operator: Operator;
  readonly createdAt: number;
  lastUsedAt: number;
  tokenExpiresAt?: number;
}

export interface SessionLimits {
  /** A session unused this long ends (default 30 min). */
  idleSeconds: number;
  /** A session ends this long after sign-in however much it is used (default 12 h). */
  absoluteSeconds: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  idleSeconds: 30 * 60,
  absoluteSeconds: 12 * 60 * 60,
};

/** A token this close to its expiry is refreshed before it is used. */
const REFRESH_MARGIN_MS = 60_000;

export const newSessionId = () => randomBytes(32).toString('base64url');

/** The key a bearer token's cached identity is kept under: its digest, never the token. */
export const bearerKey = (token: string) =>
  `bearer:${createHash('sha256').update(token).digest('base64url')}`;

interface Entry {
  session: Session;
  refresh?: SessionGrant['refresh'];
  refreshing?: Promise<boolean>;
  /** A refused refresh is not tried again before this (epoch ms) while the token still lasts. */
  retryRefreshAt?: number;
}

/** After a refused refresh, the next try waits this long (the token may last a minute more). */
const REFRESH_RETRY_MS = 10_000;

/**
 * Sessions in this process's memory, by id, with their limits and token refresh: the reviewed
 * bearer tokens of scripts, and the cache of browser sessions (`BrowserSessions`, whose cookies
 * carry them sealed). Ended ones are said to `onEnd`'s listeners.
 */
export class SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly endListeners = new Set<(id: string) => void>();

  constructor(
    /** The console's kubeconfig: its cluster is the one every operator's KubeConfig points at. */
    private readonly cluster: KubeConfig,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A new session for a proven identity; `id` is random unless given (a bearer token's key, a
   * sealed session's id), and so are its times (a sealed session signed in elsewhere). An entry
   * of the same id is replaced, not ended.
   */
  create(
    grant: SessionGrant,
    id: string = newSessionId(),
    times?: { createdAt: number; lastUsedAt: number },
  ): Session {
    this.sweep();
    const now = this.now();
    const session: Session = {
      id,
      operator: this.operatorOf(grant.username, grant.groups, grant.token),
      createdAt: times?.createdAt ?? now,
      lastUsedAt: times?.lastUsedAt ?? now,
      ...(grant.expiresAt !== undefined ? { tokenExpiresAt: grant.expiresAt } : {}),
    };
    this.entries.set(id, { session, ...(grant.refresh ? { refresh: grant.refresh } : {}) });
    return session;
  }

  /**
   * The live session of this id, its idle time reset, its token refreshed when close to expiry;
   * undefined (and forgotten) when unknown, idle or too old, or its token expired unrenewed.
   */
  async resume(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || id === '') return undefined;
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (this.expired(entry.session, now) || !(await this.fresh(entry, now))) {
      this.forget(id);
      return undefined;
    }
    entry.session.lastUsedAt = now;
    return entry.session;
  }

  /**
   * The session was used at `at` elsewhere (another replica, as its cookie says): its idle time
   * counts from then, if that is later than this process saw.
   */
  usedAt(id: string, at: number): void {
    const session = this.entries.get(id)?.session;
    if (session !== undefined && at > session.lastUsedAt) session.lastUsedAt = at;
  }

  /** Signs out: the id no longer resumes anything. */
  end(id: string | undefined): boolean {
    return id !== undefined && this.forget(id);
  }

  /**
   * Whether the session of `id` still stands now, without using it (its idle time runs on):
   * what an open stream asks while it flows. An ended one is forgotten, and said so to
   * `onEnd`'s listeners. A token due for renewal counts as standing; the next request renews it.
   */
  live(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    if (!this.ended(entry, this.now())) return true;
    this.forget(id);
    return false;
  }

  /**
   * Calls `listener` with the id of every session that ends, however it ends (sign-out, expiry,
   * a refused refresh): the SSE transport closes that session's open streams.
   */
  onEnd(listener: (id: string) => void): void {
    this.endListeners.add(listener);
  }

  get size(): number {
    return this.entries.size;
  }

  private operatorOf(username: string, groups: readonly string[], token: string): Operator {
    return { username, groups: [...groups], kubeConfig: operatorKubeConfig(this.cluster, token) };
  }

  private expired(session: Session, now: number): boolean {
    return (
      now - session.lastUsedAt >= this.limits.idleSeconds * 1000 ||
      now - session.createdAt >= this.limits.absoluteSeconds * 1000
    );
  }

  /** Whether the token is good now, refreshing it first when it is about to expire. */
  private async fresh(entry: Entry, now: number): Promise<boolean> {
    const expiresAt = entry.session.tokenExpiresAt;
    if (expiresAt === undefined || now < expiresAt - REFRESH_MARGIN_MS) return true;
    if (entry.refresh === undefined) return now < expiresAt;
    if (now < expiresAt && now < (entry.retryRefreshAt ?? 0)) return true;
    // Concurrent requests of one session wait on the same refresh.
    entry.refreshing ??= this.refresh(entry).finally(() => {
      delete entry.refreshing;
    });
    if (await entry.refreshing) return true;
    // Refused (another replica may have used the same refresh token a moment before, and an
    // issuer that rotates refuses its reuse): the token still lasts, so the session does too,
    // and the refresh is tried again shortly; it ends only with its token.
    entry.retryRefreshAt = now + REFRESH_RETRY_MS;
    return this.now() < expiresAt;
  }

  private async refresh(entry: Entry): Promise<boolean> {
    const refresh = entry.refresh;
    if (refresh === undefined) return false;
    try {
      const renewed = await refresh();
      const { session } = entry;
      session.operator = this.operatorOf(
        session.operator.username,
        session.operator.groups,
        renewed.token,
      );
      if (renewed.expiresAt !== undefined) session.tokenExpiresAt = renewed.expiresAt;
      else delete session.tokenExpiresAt;
      return true;
    } catch {
      return false;
    }
  }

  /** Idle, too old, or its token expired with no way to renew it. */
  private ended(entry: Entry, now: number): boolean {
    const { tokenExpiresAt } = entry.session;
    const tokenDead =
      tokenExpiresAt !== undefined && entry.refresh === undefined && now >= tokenExpiresAt;
    return this.expired(entry.session, now) || tokenDead;
  }

  private forget(id: string): boolean {
    if (!this.entries.delete(id)) return false;
    for (const listener of this.endListeners) listener(id);
    return true;
  }

  /** Drops ended sessions so the map holds only live ones. */
  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (this.ended(entry, now)) this.forget(id);
  }
}
