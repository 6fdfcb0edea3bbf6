import { createHash } from 'node:crypto';
import type { CoreV1Api, V1Secret } from '@kubernetes/client-node';
import { isConflict, isNotFound, toKubeError } from '@mgpu/kube-client';

/**
 * A signed-out session's key in the list: a digest of its id, so the list (readable by whoever
 * may read the console's Secrets) names no session, and the id alone opens nothing anyway.
 * 128 bits: no two of the list's sessions share one, and a Secret's MiB holds ~25,000.
 */
export const revocationKey = (sessionId: string) =>
  createHash('sha256')
    .update(`mgpu-console revoked ${sessionId}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');

/**
 * The sessions signed out before they would have ended, each kept until then: sign-out on any
 * replica is refused by all. `revoked` answers from memory (every request asks it).
 */
export interface Revocations {
  revoked(sessionId: string): boolean;
  /** Signs the session out everywhere until `until` (epoch ms): at once here, soon on the others. */
  revoke(sessionId: string, until: number): Promise<void>;
  /** Called with the `revocationKey` of every session signed out, here or on another replica. */
  onRevoked(listener: (key: string) => void): void;
  /**
   * Whether every sign-out made before this replica started is known here: until then it must
   * not be sent operators (`/readyz`), or it would accept cookies signed out elsewhere.
   */
  readonly ready: boolean;
  start(): Promise<void>;
  stop(): void;
}

/**
 * Why a session cookie is answered 503 while `ready` is false: until the list is read a cookie
 * signed out before this replica started would be accepted, so none is (bearer tokens still are).
 * Usually the console is starting; if it lasts, its account may not read the Secret (RBAC).
 */
export const SIGN_OUTS_NOT_READ =
  'This console cannot judge session cookies yet: it has not read the sessions signed out before it started (its Secret of sign-outs; if this lasts, its account may not read that Secret). Try again in a few seconds; bearer tokens work meanwhile.';

/** How long a cookie answered 503 for `SIGN_OUTS_NOT_READ` waits (a poll of the Secret and a margin). */
export const SIGN_OUTS_RETRY_SECONDS = 5;

/** One console, or consoles that share no key (their sessions are their own): kept in memory. */
export class LocalRevocations implements Revocations {
  /** revocationKey → until (epoch ms). */
  protected readonly entries = new Map<string, number>();
  private readonly listeners = new Set<(key: string) => void>();

  constructor(protected readonly now: () => number = Date.now) {}

  revoked(sessionId: string): boolean {
    const until = this.entries.get(revocationKey(sessionId));
    return until !== undefined && until > this.now();
  }

  get ready(): boolean {
    return true;
  }

  async revoke(sessionId: string, until: number): Promise<void> {
    this.sweep();
    this.add(revocationKey(sessionId), until);
  }

  onRevoked(listener: (key: string) => void): void {
    this.listeners.add(listener);
  }

  async start(): Promise<void> {}

  stop(): void {}

  /** Expired ones go, so memory holds only sessions still young: once per change, not per entry. */
  protected sweep(): void {
    const now = this.now();
    for (const [old, expires] of this.entries) if (expires <= now) this.entries.delete(old);
  }

  /** Adds one (a new key is told to the listeners). */
  protected add(key: string, until: number): void {
    if (until <= this.now()) return;
    const known = this.entries.has(key);
    this.entries.set(key, Math.max(until, this.entries.get(key) ?? 0));
    if (!known) for (const listener of this.listeners) listener(key);
  }
}

export interface ClusterRevocationsOptions {
  core: CoreV1Api;
  namespace: string;
  /** The Secret's name (`<instance>-revoked-sessions`). */
  name: string;
  /** Between reads of the Secret (default 2 s: a sign-out reaches every replica within 5 s). */
  pollMs?: number;
  log: { warn(message: string): void; info(message: string): void };
  now?: () => number;
}

const DATA_KEY = 'revoked';
/** A write that lost a race to another replica is tried again on the newer object this often. */
const WRITE_ATTEMPTS = 5;
/** Past this many bytes of list the Secret nears its 1 MiB: said loudly, before writes fail. */
const LIST_WARN_BYTES = 768 * 1024;

/**
 * The revocations shared through the cluster: a Secret in the console's namespace (only the
 * console's account and the namespace's admins read it), `data.revoked` a JSON map of
 * `revocationKey` → until. Every replica reads it every `pollMs` — one small GET, cheaper than a
 * watch's connection and with no list permission — and each write merges into the newest
 * object (resourceVersion: two replicas signing out at once both land) and drops expired
 * entries, so the Secret holds only sessions still young. A sign-out the cluster refused is
 * kept here and written again at the next poll. Reads and writes run one at a time (`work`):
 * a sign-out made while a write is in flight is written by the next one, never dropped.
 */
export class ClusterRevocations extends LocalRevocations {
  private timer: NodeJS.Timeout | undefined;
  /** Revocations not yet stored in the cluster: each write takes those it stored out. */
  private readonly unwritten = new Map<string, number>();
  private failing = false;
  private warnedSize = false;
  private listRead = false;
  /** The poll or write running now; the next waits for it. */
  private work: Promise<void> = Promise.resolve();
  private polling = false;

  constructor(private readonly options: ClusterRevocationsOptions) {
    super(options.now);
  }

  override async revoke(sessionId: string, until: number): Promise<void> {
    const key = revocationKey(sessionId);
    this.sweep();
    this.add(key, until);
    this.unwritten.set(key, Math.max(until, this.unwritten.get(key) ?? 0));
    await this.serially(() => this.write());
  }

  /** Whether the list was read once: a replica before that does not know who signed out. */
  override get ready(): boolean {
    return this.listRead;
  }

  /** Reads the list once (a replica starting refuses what was signed out before), then polls. */
  override async start(): Promise<void> {
    await this.serially(() => this.poll());
    this.timer = setInterval(() => {
      // A slow API server gets one poll at a time, not a pile of them.
      if (this.polling) return;
      this.polling = true;
      void this.serially(() => this.poll()).finally(() => {
        this.polling = false;
      });
    }, this.options.pollMs ?? 2000);
    this.timer.unref();
  }

  override stop(): void {
    clearInterval(this.timer);
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const next = this.work.then(step, step);
    this.work = next.catch(() => undefined);
    return next;
  }

  private async poll(): Promise<void> {
    try {
      const secret = await this.read();
      this.listRead = true;
      this.sweep();
      for (const [key, until] of Object.entries(entriesOf(secret))) this.add(key, until);
      if (this.unwritten.size > 0) await this.write();
      else this.recovered();
    } catch (error) {
      this.failed('read', error);
    }
  }

  private async read(): Promise<V1Secret | undefined> {
    const { core, namespace, name } = this.options;
    try {
      return await core.readNamespacedSecret({ name, namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async write(): Promise<void> {
    const { core, namespace, name } = this.options;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      try {
        const current = await this.read();
        const now = this.now();
        const sent = new Map(this.unwritten);
        const merged: Record<string, number> = {};
        for (const [key, until] of [...Object.entries(entriesOf(current)), ...sent.entries()])
          if (until > now) merged[key] = Math.max(until, merged[key] ?? 0);
        const list = JSON.stringify(merged);
        this.warnIfLarge(list.length);
        const data = { [DATA_KEY]: Buffer.from(list).toString('base64') };
        if (current === undefined)
          await core.createNamespacedSecret({
            namespace,
            body: {
              metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'mgpu-console' } },
              type: 'Opaque',
              data,
            },
          });
        else await core.replaceNamespacedSecret({ name, namespace, body: { ...current, data } });
        // Only what this write stored: a sign-out added meanwhile waits for the next write.
        for (const [key, until] of sent)
          if (this.unwritten.get(key) === until) this.unwritten.delete(key);
        this.recovered();
        return;
      } catch (error) {
        // Another replica wrote first (or created it first): merge into its object again.
        if (isConflict(error)) continue;
        this.failed('write', error);
        return;
      }
    }
  }

  /** A list near the Secret's 1 MiB (a flood of sign-outs): said before its writes fail. */
  private warnIfLarge(bytes: number): void {
    if (bytes < LIST_WARN_BYTES || this.warnedSize) return;
    this.warnedSize = true;
    const { namespace, name } = this.options;
    this.options.log.warn(
      `Secret ${namespace}/${name} holds ${bytes} bytes of sign-outs, near a Secret's 1 MiB; past it sign-outs are no longer shared (entries leave when their sessions would have ended; --session-max-hours shortens that)`,
    );
  }

  /** Said once per change: a cluster that refuses is logged when it starts and when it stops. */
  private failed(what: 'read' | 'write', error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    const { namespace, name } = this.options;
    this.options.log.warn(
      `sign-outs are not shared with other replicas until the console can ${what} Secret ${namespace}/${name}: ${toKubeError(error).message}`,
    );
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.options.log.info('sign-outs are shared with the other replicas again');
  }
}

/** The Secret's list; a value that is not the list reads as empty (the next write replaces it). */
function entriesOf(secret: V1Secret | undefined): Record<string, number> {
  const text = secret?.data?.[DATA_KEY];
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] =>
        Number.isFinite(entry[1]),
      ),
    );
  } catch {
    return {};
  }
}
