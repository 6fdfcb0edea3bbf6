import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { bearerCheck } from '@mgpu/kube-client';
import {
  type CardPolicy,
  PendingWatchInputSchema,
  SNAPSHOT_PART_SIZE,
  VKE,
  WorkloadWatchInputSchema,
} from '@mgpu/shared';
import type { TRPCError } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { z } from 'zod';
import { ClusterClient } from './cluster/cluster-client.js';
import { type ClusterConnection, describeSource } from './cluster/connection.js';
import { AccessReviews } from './identity/access-reviews.js';
import type { AuditEntry } from './identity/audit.js';
import { registerOidcRoutes } from './identity/oidc-routes.js';
import { type OidcSettings, OidcSignIn } from './identity/oidc-sign-in.js';
import type { Operator } from './identity/operator.js';
import {
  BEARER_REVIEW_SECONDS,
  bearerTokenOf,
  OperatorAccess,
} from './identity/operator-access.js';
import {
  bearerKey,
  DEFAULT_SESSION_LIMITS,
  type SessionLimits,
  SessionStore,
} from './identity/sessions.js';
import { AllocationFeed } from './live/allocation-feed.js';
import { PoolHistory, type PoolHistoryOptions } from './live/pool-history.js';
import { ConsoleMetrics, serveMetrics } from './observability/metrics.js';
import { AllocationsWatchInputSchema } from './procedures/allocations-watch.js';
import { WorkloadProgressInputSchema } from './procedures/workload-progress.js';
import { type AppRouter, appRouter } from './router.js';
import type { BffContext } from './trpc/context.js';
import { SSE_TIMING } from './trpc/init.js';
import { mutationHook } from './trpc/mutation-transport.js';
import { SseTransport, subscriptionInput } from './trpc/sse-transport.js';

export interface BffOptions {
  connection: ClusterConnection;
  port?: number;
  host?: string;
  /** When set, every `/trpc` request needs `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * `kubernetes`: every operator signs in with their own Kubernetes bearer token and every
   * Kubernetes call made for them uses it (spec §8 "Operator identity"); `oidc`: the same, with
   * the ID token of a sign-in through the issuer as that token. Unset: no per-user auth.
   */
  auth?: AuthMode;
  /** `--auth oidc`: the issuer and the console's client there (required with it). */
  oidc?: OidcSettings;
  /** `--auth` sessions: idle and absolute lifetime (defaults 30 min and 12 h). */
  sessionLimits?: Partial<SessionLimits>;
  /** The built web app; its index.html answers every unknown GET (SPA routes). */
  webRoot?: string;
  cardPolicy?: CardPolicy;
  /** The node label naming the GPU model (default: VKE's). */
  modelLabel?: string;
  /** Namespaces preview and create refuse (rule namespace-reserved); unset: the rule's defaults. */
  reservedNamespaces?: readonly string[];
  /**
   * Origins besides the console's own loopback address that may call it (e.g.
   * `https://gpu-console.example.com` behind a proxy); their hosts are accepted too.
   */
  allowedOrigins?: string[];
  /** Largest request body in bytes (413 above it). */
  bodyLimit?: number;
  /**
   * Unread SSE bytes after which a subscriber's stream waits for it to read before sending more
   * (default 8 MiB); one that then reads nothing for 30 s is cut off (it resumes by
   * `Last-Event-ID`).
   */
  maxBufferedEventBytes?: number;
  /** Items per part of a subscription's snapshot (default `SNAPSHOT_PART_SIZE`, 2,000). */
  snapshotPartSize?: number;
  logger?: FastifyServerOptions['logger'];
  /** How long a browser session lasts (default 12 h); an older cookie is refused. */
  sessionMaxAgeSeconds?: number;
  /** Wrong tokens per client address per minute at `/session` before 429 (default 10). */
  signInAttemptsPerMinute?: number;
  /**
   * Time to receive a whole request (default 30 s) and its headers (default 10 s): a client
   * that trickles a body cannot hold a connection. A response, an SSE stream, is not limited.
   */
  timeouts?: { requestMs?: number; headersMs?: number };
  /** Serve Prometheus `/metrics` on this port (0: any free one) of `metricsHost`; unset: no metrics. */
  metricsPort?: number;
  /** Where `/metrics` listens (default 127.0.0.1): not the console's `host`, so it is opened on purpose. */
  metricsHost?: string;
  /** Per-pool history: sampling interval (default 10 s) and how long it reaches (default 1 h). */
  history?: PoolHistoryOptions;
  /** How long an operator's RBAC decisions are cached (default 5 s): a revocation's delay. */
  accessReviewTtlMs?: number;
  /**
   * How long a script's reviewed bearer token is trusted before the API server is asked again,
   * on new requests and open streams alike (default `BEARER_REVIEW_SECONDS`, a minute).
   */
  bearerReviewSeconds?: number;
}

export interface RunningBff {
  app: FastifyInstance;
  url: string;
  context: BffContext;
  /** With `auth`: the operators' sessions (`--auth oidc` creates them after its code exchange). */
  sessions?: SessionStore;
  /** `http://<host>:<port>/metrics` when `metricsPort` was given. */
  metricsUrl?: string;
  close(): Promise<void>;
}

interface AllowedOrigins {
  /** `Host` header values this console answers to (DNS rebinding is refused). */
  hosts: Set<string>;
  /** `Origin` values that may call mutations. */
  origins: Set<string>;
}

/** The console's own loopback names on its port, the listen address itself, and the extra origins. */
export function allowedOrigins(
  port: string,
  host: string,
  extra: readonly string[],
): AllowedOrigins {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  if (host !== '0.0.0.0' && host !== '::')
    hosts.add(host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
  const origins = new Set([...hosts].map((name) => `http://${name}`));
  for (const origin of extra) {
    const url = new URL(origin);
    hosts.add(url.host);
    origins.add(url.origin);
  }
  return { hosts, origins };
}

/**
 * The token typed at `/session` (a string decoded from JSON, any length and script), compared as
 * HMACs under a per-process key: equal lengths, so no early return tells a length. Sign-ins are
 * few and throttled; the per-request checks below compare bytes made once instead.
 */
const COMPARISON_KEY = randomBytes(32);
const digestOf = (value: string) => createHmac('sha256', COMPARISON_KEY).update(value).digest();
const sameSecret = (given: string | undefined, expected: string) =>
  timingSafeEqual(digestOf(given ?? ''), digestOf(expected));

/** A session cookie's MAC (base64url of a SHA-256, always 43 characters: no secret length). */
const sameMac = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/** Who an admitted request is: `operator` is set with per-user auth only. */
type Admission =
  | { readonly operator?: Operator; readonly unavailable?: undefined }
  | { readonly unavailable: string; readonly operator?: undefined };
const NO_OPERATOR: Admission = Object.freeze({});

/** The cookie a browser holds once its operator typed the token (EventSource sends no headers). */
export const SESSION_COOKIE = 'mgpu_console_session';

/**
 * What is needed to call `/trpc`: nothing, or the bearer token — as an `Authorization` header
 * (scripts) or as the session cookie `/session` hands out for it (the browser). The cookie holds
 * its issue time and an HMAC of it under the token, not the token: it stays valid across
 * restarts with the same token, stops working when the token changes, and expires after
 * `maxAgeSeconds` however long the browser keeps it. Each sign-in gets a fresh value.
 */
class Access {
  /** `Authorization: Bearer <token>`, checked on bytes made once (a request allocates nothing). */
  private readonly bearer: ((authorization: string | undefined) => boolean) | undefined;

  constructor(
    readonly token: string | undefined,
    readonly maxAgeSeconds: number,
    /** `--auth kubernetes` or `oidc`: operators' own tokens instead of the console's one token. */
    readonly operators?: OperatorAccess,
    readonly authMode: AuthMode = 'kubernetes',
  ) {
    this.bearer = token === undefined ? undefined : bearerCheck(token);
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
   * Absent per-user auth this is the token check as before, answered synchronously: a request
   * then costs no promise, no operator and no review. `unavailable`: a bearer token the API
   * server could not be asked about (neither admitted nor refused).
   */
  admit(request: FastifyRequest): Admission | undefined | Promise<Admission | undefined> {
    if (this.operators === undefined) return this.grants(request) ? NO_OPERATOR : undefined;
    return this.operators
      .operatorOf(request, SESSION_COOKIE)
      .then((operator) =>
        operator === undefined ? undefined : 'unavailable' in operator ? operator : { operator },
      );
  }

  private sign(issuedAt: string): string {
    return createHmac('sha256', this.token ?? '')
      .update(`mgpu-console session v2 ${issuedAt}`)
      .digest('base64url');
  }

  /** A new session cookie value, issued now; undefined when no token is needed. */
  newSession(now = Date.now()): string | undefined {
    if (this.token === undefined) return undefined;
    const issuedAt = String(now);
    return `${issuedAt}.${this.sign(issuedAt)}`;
  }

  private validSession(value: string | undefined, now = Date.now()): boolean {
    const [issuedAt = '', mac = ''] = (value ?? '').split('.', 2);
    const issued = /^\d{1,15}$/.test(issuedAt) ? Number(issuedAt) : Number.NaN;
    const fresh = issued <= now + 60_000 && now - issued < this.maxAgeSeconds * 1000;
    // Compared even when stale, so the answer takes the same time either way.
    return sameMac(mac, this.sign(issuedAt)) && fresh;
  }

  grants(request: FastifyRequest): boolean {
    if (this.bearer === undefined) return true;
    return (
      this.bearer(request.headers.authorization) ||
      this.validSession(request.cookies[SESSION_COOKIE])
    );
  }
}

/**
 * Wrong tokens at `/session`, counted per client address in fixed one-minute windows: guessing
 * the token from a browser tab or a script is slowed to `limit` tries a minute.
 */
class SignInThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until this address may try again, or 0 when it may now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    const window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) return 0;
    return window.failures >= this.limit
      ? Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000))
      : 0;
  }

  failed(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) {
      // Old windows are dropped as new ones start, so the map holds only recent addresses.
      for (const [key, old] of this.windows)
        if (now - old.start >= this.windowMs) this.windows.delete(key);
      this.windows.set(address, { start: now, failures: 1 });
    } else window.failures += 1;
  }
}

/** Subscriptions answer over SSE with status 200 before their input is read: check it first. */
const SUBSCRIPTION_INPUTS: Record<string, z.ZodType> = {
  'allocations.watch': AllocationsWatchInputSchema,
  'workload.progress': WorkloadProgressInputSchema,
  'cluster.pendingWatch': PendingWatchInputSchema,
  'workload.watch': WorkloadWatchInputSchema,
};

// A subscription added without its schema here would stream before its input was checked.
for (const path of SseTransport.subscriptionPaths(appRouter))
  if (SUBSCRIPTION_INPUTS[path] === undefined)
    throw new Error(`subscription ${path} has no input schema in SUBSCRIPTION_INPUTS`);

const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ error: { message, code } });

/** 429 with Retry-After: this address sent too many wrong tokens (sign-in or bearer). */
const tooManyWrongTokens = (reply: FastifyReply, waitSeconds: number) => {
  reply.header('retry-after', String(waitSeconds));
  return refuse(
    reply,
    429,
    'TOO_MANY_REQUESTS',
    `Too many wrong tokens from this address; try again in ${waitSeconds} s.`,
  );
};

/** 503, not 401: the token may well be good, the API server could not be asked about it. */
const tokenNotChecked = (reply: FastifyReply, reason: string) =>
  refuse(
    reply,
    503,
    'SERVICE_UNAVAILABLE',
    `The Kubernetes API server could not check the token: ${reason}`,
  );

/** A state-changing request must come from one of the console's own origins (no CSRF). */
function originCheck(allowed: () => AllowedOrigins) {
  return (request: FastifyRequest, reply: FastifyReply) => {
    const { origins } = allowed();
    const origin = request.headers.origin;
    if (origin !== undefined && origins.has(origin)) return undefined;
    const expected = [...origins][0] ?? '';
    request.log.warn({ origin }, 'mutation refused: Origin not allowed');
    return refuse(
      reply,
      403,
      'FORBIDDEN',
      origin
        ? `Origin ${origin} may not call mutations here; expected ${expected}.`
        : `Mutations need an Origin header such as ${expected} (browsers send it; scripts add -H 'Origin: ${expected}').`,
    );
  };
}

/**
 * Guards every tRPC route: the Host must be this console's (no DNS rebinding), the bearer token
 * when one is set, an allowed Origin on mutations (browsers always send it on POST), and a
 * subscription's input must parse before the stream opens.
 */
function guardTrpc(
  allowed: () => AllowedOrigins,
  access: Access,
  operators: WeakMap<FastifyRequest, Operator>,
  throttle: SignInThrottle,
) {
  const checkOrigin = originCheck(allowed);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { hosts } = allowed();
    if (!hosts.has(request.headers.host ?? '')) {
      return refuse(
        reply,
        421,
        'MISDIRECTED',
        `This console does not answer as ${request.headers.host ?? '(no Host)'}; start it with --allowed-origin for other names.`,
      );
    }
    // With per-user auth each unknown bearer token costs the API server a review: wrong ones
    // count against the address as wrong sign-ins do.
    const reviewsBearer = access.operators !== undefined && bearerTokenOf(request) !== undefined;
    const wait = reviewsBearer ? throttle.retryAfterSeconds(request.ip) : 0;
    if (wait > 0) return tooManyWrongTokens(reply, wait);
    const admission = access.admit(request);
    const admitted = admission instanceof Promise ? await admission : admission;
    if (admitted?.unavailable !== undefined) {
      // As at browser sign-in: the token may well be good, the API server did not say.
      request.log.warn(
        { reason: admitted.unavailable },
        'token not checked: API server unavailable',
      );
      return tokenNotChecked(reply, admitted.unavailable);
    }
    if (admitted === undefined) {
      if (reviewsBearer) throttle.failed(request.ip);
      reply.header('www-authenticate', 'Bearer');
      return refuse(
        reply,
        401,
        'UNAUTHORIZED',
        access.operators
          ? 'This console needs your own Kubernetes identity: Authorization: Bearer <your Kubernetes token>, or sign in at /session; a session that ended or was never made is refused.'
          : 'This console needs a bearer token: Authorization: Bearer <token> (browsers sign in at /session).',
      );
    }
    if (admitted.operator) operators.set(request, admitted.operator);
    const procedure = (request.params as { path?: string }).path ?? '';
    // A subscription is a GET stream; any other method must not reach tRPC's own SSE producer.
    if (
      request.method !== 'GET' &&
      procedure.split(',').some((path) => SUBSCRIPTION_INPUTS[path] !== undefined)
    ) {
      reply.header('allow', 'GET');
      return refuse(
        reply,
        405,
        'METHOD_NOT_SUPPORTED',
        `${procedure} is a subscription: open it with GET (server-sent events).`,
      );
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      return checkOrigin(request, reply);
    }
    const schema = SUBSCRIPTION_INPUTS[procedure];
    if (schema !== undefined) {
      const read = subscriptionInput(request, procedure);
      if (!read.ok) return refuse(reply, 400, 'PARSE_ERROR', read.message);
      const parsed = schema.safeParse(read.input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return refuse(
          reply,
          400,
          'BAD_REQUEST',
          `Invalid input of ${procedure}: ${issue?.path.join('.') || '(input)'}: ${issue?.message ?? 'invalid'}`,
        );
      }
    }
  };
}

const SessionInputSchema = z.object({ token: z.string().min(1).max(4096) });

/** Per-user sign-in modes (spec §8): a Kubernetes token typed in, or through an OIDC issuer. */
export type AuthMode = 'kubernetes' | 'oidc';

/**
 * The session cookie's attributes: HttpOnly (page script never reads it), SameSite=Strict
 * (other sites' pages never send it), Secure when the browser reached the console over HTTPS —
 * directly or through a TLS-terminating proxy that says so in `X-Forwarded-Proto`.
 */
export function sessionCookieOptions(request: FastifyRequest) {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',', 1)[0]?.trim();
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https' || proto === 'https',
  } as const;
}

/**
 * `/session`: how the browser signs in. GET says which sign-in the console wants (`mode`), whether
 * this browser has signed in and, with per-user auth, as whom; POST `{ token }` sets the session
 * cookie (HttpOnly, SameSite=Strict: scripts on other sites can neither read nor send it) — with
 * `--auth kubernetes` only once the API server said who the token is; DELETE signs out. The Host
 * and Origin checks are the same as for `/trpc`.
 */
function registerSession(
  app: FastifyInstance,
  access: Access,
  allowed: () => AllowedOrigins,
  throttle: SignInThrottle,
  audit: (entry: AuditEntry) => void,
) {
  const checkOrigin = originCheck(allowed);
  const misdirected = (request: FastifyRequest, reply: FastifyReply) =>
    allowed().hosts.has(request.headers.host ?? '')
      ? undefined
      : refuse(reply, 421, 'MISDIRECTED', 'This console does not answer under that name.');
  const signInAudit = (
    procedure: 'session.sign-in' | 'session.sign-out',
    operator: Pick<Operator, 'username' | 'groups'> | undefined,
    status: number,
  ) =>
    audit({
      user: operator?.username ?? null,
      groups: operator?.groups ?? [],
      procedure,
      outcome: status === 200 ? 'ok' : String(status),
      status,
    });
  app.get('/session', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    reply.header('cache-control', 'no-store');
    const admission = access.admit(request);
    const admitted = admission instanceof Promise ? await admission : admission;
    const operator = admitted?.unavailable === undefined ? admitted?.operator : undefined;
    return {
      required: access.required,
      ...access.mode,
      signedIn: admitted !== undefined && admitted.unavailable === undefined,
      ...(operator ? { username: operator.username, groups: operator.groups } : {}),
    };
  });
  app.post('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    const parsed = SessionInputSchema.safeParse(request.body);
    if (!parsed.success)
      return refuse(reply, 400, 'BAD_REQUEST', 'Send the token as JSON: { "token": "…" }.');
    if (!access.required) return { required: false, ...access.mode, signedIn: true };
    const wait = throttle.retryAfterSeconds(request.ip);
    if (wait > 0) return tooManyWrongTokens(reply, wait);
    if (access.operators) {
      const { review, session } = await access.operators.signIn(parsed.data.token);
      if (!review.ok && review.reason === 'unavailable') {
        request.log.warn({ reason: review.message }, 'sign-in not checked: API server unavailable');
        signInAudit('session.sign-in', undefined, 503);
        return tokenNotChecked(reply, review.message);
      }
      if (session === undefined) {
        throttle.failed(request.ip);
        request.log.warn('sign-in refused: the API server did not accept the token');
        signInAudit('session.sign-in', undefined, 401);
        return refuse(
          reply,
          401,
          'UNAUTHORIZED',
          'The Kubernetes API server did not accept that token (unknown, expired or revoked).',
        );
      }
      reply.setCookie(SESSION_COOKIE, session.id, {
        ...sessionCookieOptions(request),
        maxAge: access.operators.sessions.limits.absoluteSeconds,
      });
      signInAudit('session.sign-in', session.operator, 200);
      const { username, groups } = session.operator;
      return { required: true, ...access.mode, signedIn: true, username, groups };
    }
    if (!sameSecret(parsed.data.token, access.token ?? '')) {
      throttle.failed(request.ip);
      request.log.warn('sign-in refused: wrong token');
      return refuse(reply, 401, 'UNAUTHORIZED', "That is not this console's token.");
    }
    reply.setCookie(SESSION_COOKIE, access.newSession() ?? '', {
      ...sessionCookieOptions(request),
      maxAge: access.maxAgeSeconds,
    });
    return { required: true, ...access.mode, signedIn: true };
  });
  app.delete('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    if (access.operators) {
      const cookieValue = request.cookies[SESSION_COOKIE];
      const session = await access.operators.sessions.resume(cookieValue);
      access.operators.sessions.end(cookieValue);
      signInAudit('session.sign-out', session?.operator, 200);
    }
    reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(request));
    return { required: access.required, ...access.mode, signedIn: !access.required };
  });
}

/** Query parameters whose values are secrets: never written to a log. */
// `code`: the authorization code of `--auth oidc`'s callback (short-lived, but a bearer of sorts).
const SECRET_PARAMETERS = /([?&](?:token|access_token|code)=)[^&#]*/gi;

/** A URL as logged: secret query values replaced. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMETERS, '$1[redacted]');

/**
 * The logger with secrets kept out: `?token=` values in the request URL, and the
 * Authorization and Cookie headers should anything log headers.
 */
function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (typeof logger !== 'object' || logger === null) return logger;
  const given = logger as Exclude<FastifyServerOptions['logger'], boolean | undefined> & {
    serializers?: Record<string, (value: never) => unknown>;
  };
  return {
    ...given,
    redact: [
      'req.headers.authorization',
      'req.headers.cookie',
      'headers.authorization',
      'headers.cookie',
    ],
    serializers: {
      ...given.serializers,
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  } as FastifyServerOptions['logger'];
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

const DEFAULT_WEB_ROOT = resolve(import.meta.dirname, '..', '..', 'web', 'dist');

/** The strict CSP: only our own scripts and API; antd's CSS-in-JS needs inline styles. */
const CONTENT_SECURITY_POLICY = {
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    // Plain HTTP on loopback: an upgrade to https would leave the app unable to load.
    upgradeInsecureRequests: null,
  },
};

/**
 * The BFF: tRPC at /trpc (plain JSON, SSE subscriptions), health endpoints, and the web app,
 * behind security headers, a body limit, an Origin check on mutations and an optional token.
 */
export async function startBff(options: BffOptions): Promise<RunningBff> {
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const cluster = new ClusterClient(options.connection.kubeConfig, { modelLabel });
  const allocations = new AllocationFeed(cluster, {
    onInvalidRecord: (id, error) =>
      app.log.error({ record: id, issues: error.issues }, 'allocation record left out: invalid'),
  });
  const history = new PoolHistory(() => context, options.history);
  const context: BffContext = {
    cluster,
    source: options.connection.source,
    allocations,
    snapshotPartSize: options.snapshotPartSize ?? SNAPSHOT_PART_SIZE,
    history,
    cardPolicy: options.cardPolicy ?? 'binpack',
    accessReviews: new AccessReviews(
      options.accessReviewTtlMs !== undefined ? { ttlMs: options.accessReviewTtlMs } : {},
    ),
    modelLabel,
    ...(options.reservedNamespaces ? { reservedNamespaces: options.reservedNamespaces } : {}),
    // One JSON line per mutation, sign-in and sign-out (spec §8), as `{ audit: … }`.
    audit: (entry) => app.log.info({ audit: entry }, 'audit'),
  };
  const timeouts = { requestMs: 30_000, headersMs: 10_000, ...options.timeouts };
  const app = Fastify({
    logger: withRedaction(options.logger ?? { level: 'info' }),
    // Node cuts a request not fully received in time (408); once it is, the timer stops, so a
    // long-lived SSE response is not affected. Checked every second rather than every 30.
    requestTimeout: timeouts.requestMs,
    http: {
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs, timeouts.requestMs),
    },
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Open SSE streams would otherwise keep `close()` waiting forever.
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 5000 },
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(helmet, {
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    // Served over plain HTTP (loopback, or behind a proxy that owns TLS): asking browsers to
    // upgrade or pin HTTPS would break the console itself.
    strictTransportSecurity: false,
    global: true,
  });

  // Known once the server listens (port 0 in tests): the origins this console answers as.
  const allowed: AllowedOrigins = { hosts: new Set(), origins: new Set() };
  const sessions = options.auth
    ? new SessionStore(options.connection.kubeConfig, {
        ...DEFAULT_SESSION_LIMITS,
        ...(options.sessionMaxAgeSeconds ? { absoluteSeconds: options.sessionMaxAgeSeconds } : {}),
        ...options.sessionLimits,
      })
    : undefined;
  const access = new Access(
    options.token,
    options.sessionMaxAgeSeconds ?? 12 * 60 * 60,
    sessions &&
      new OperatorAccess(
        options.connection.kubeConfig,
        sessions,
        new SessionStore(options.connection.kubeConfig, {
          idleSeconds: options.bearerReviewSeconds ?? BEARER_REVIEW_SECONDS,
          absoluteSeconds: options.bearerReviewSeconds ?? BEARER_REVIEW_SECONDS,
        }),
      ),
    options.auth,
  );
  // Who each admitted request is (per-user auth): the guard finds out, createContext reads it.
  const operators = new WeakMap<FastifyRequest, Operator>();
  // Filled in once the server listens (port 0 in tests); no request arrives before that.
  const throttle = new SignInThrottle(options.signInAttemptsPerMinute ?? 10);
  const guard = guardTrpc(() => allowed, access, operators, throttle);
  await app.register(cookie);
  registerSession(app, access, () => allowed, throttle, context.audit ?? (() => {}));
  if (options.auth === 'oidc' && access.operators) {
    if (!options.oidc) throw new Error('--auth oidc needs --oidc-issuer and --oidc-client-id');
    registerOidcRoutes(app, {
      // Before listening: a console no operator could sign in to says so at start.
      signIn: await OidcSignIn.discover(options.oidc),
      operators: access.operators,
      sessionCookie: SESSION_COOKIE,
      cookieOptions: sessionCookieOptions,
      knownHost: (host) => allowed.hosts.has(host ?? ''),
      audit: context.audit ?? (() => {}),
    });
  }
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async (_request, reply) => {
    try {
      const version = await Promise.race([
        cluster.version(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('timed out after 2 s')), 2000),
        ),
      ]);
      return {
        ready: true,
        cluster: describeSource(options.connection.source),
        version: version.gitVersion,
      };
    } catch (error) {
      return reply
        .code(503)
        .send({ ready: false, reason: error instanceof Error ? error.message : String(error) });
    }
  });

  // One client per operator (per session), not per request: its keep-alive connections are reused.
  const operatorClients = new WeakMap<Operator, ClusterClient>();
  const createContext = (request: FastifyRequest): BffContext => {
    const operator = operators.get(request);
    if (operator === undefined) return context;
    let client = operatorClients.get(operator);
    if (client === undefined) {
      client = cluster.forOperator(operator.kubeConfig);
      operatorClients.set(operator, client);
    }
    return { ...context, cluster: client, operator };
  };
  const onError = (error: TRPCError, path: string | undefined) => {
    if (error.code === 'INTERNAL_SERVER_ERROR')
      app.log.error({ err: error, path }, 'procedure failed');
  };
  // The browser session a stream was let in on (a script's bearer token is no session).
  const sessionOfStream = (request: FastifyRequest) =>
    bearerTokenOf(request) === undefined ? request.cookies[SESSION_COOKIE] : undefined;
  const subscriptions = new SseTransport({
    router: appRouter,
    createContext,
    ...SSE_TIMING,
    maxBufferedBytes: options.maxBufferedEventBytes ?? 8 * 1024 * 1024,
    // A session's streams end with it (idle, too old): the client reconnects into a 401. A
    // script's token is reviewed again once its minute is up; a refusal ends its streams below.
    ...(sessions
      ? {
          stillAdmitted: (request: FastifyRequest) => {
            const bearer = bearerTokenOf(request);
            if (bearer !== undefined) {
              access.operators?.recheckBearer(bearer);
              return true;
            }
            const id = request.cookies[SESSION_COOKIE];
            return id === undefined || sessions.live(id);
          },
        }
      : {}),
    onError: (error, path) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        app.log.error({ err: error, path }, 'subscription failed');
    },
  });

  // Signed out, or a script's token refused on its review: at once, not at the next tick.
  sessions?.onEnd((id) => subscriptions.endStreams((request) => sessionOfStream(request) === id));
  access.operators?.onBearerRefused((key) =>
    subscriptions.endStreams((request) => {
      const bearer = bearerTokenOf(request);
      return bearer !== undefined && bearerKey(bearer) === key;
    }),
  );

  const metrics =
    options.metricsPort === undefined
      ? undefined
      : new ConsoleMetrics({
          context,
          router: appRouter,
          sseSubscribers: () => subscriptions.streams,
        });
  if (metrics) app.addHook('onResponse', metrics.onResponse);

  // The guard sits in the same scope as tRPC's routes, so it runs on whatever URL spelling
  // Fastify routes to them (`/%74rpc/…` included).
  await app.register(async (scope) => {
    scope.addHook('onRequest', guard);
    // Subscriptions (input already checked by the guard) stream through the fan-out transport.
    scope.addHook('onRequest', subscriptions.hook());
    // A single mutation (a create, a delete) is answered without tRPC's fetch adapter.
    scope.addHook('preHandler', mutationHook({ router: appRouter, createContext, onError }));
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: appRouter,
        createContext: ({ req }) => createContext(req),
        // The web app sends large previews as POST (a GET URL is limited); GET keeps working.
        allowMethodOverride: true,
        onError: ({ error, path }) => onError(error, path),
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });

  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT;
  const hasWeb = existsSync(join(webRoot, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      // Files are looked up per request, so a rebuilt web app is served without a restart.
      wildcard: true,
      cacheControl: false,
      // The build writes `.br` and `.gz` beside each file; they are sent as they are.
      preCompressed: true,
      // Vite names every asset by its content hash: it never changes under its name. The page
      // itself must be asked for again each time, or a browser keeps an old build's names.
      setHeaders: (reply, path) => {
        reply.header('cache-control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache');
      },
    });
  }
  /**
   * The page for an SPA route: the web build prerenders /workloads/new (its form in zh-CN,
   * `apps/web/src/prerendered.ts`) so it paints before the script runs; every other route, or a
   * build without that file, gets the empty index.html. Looked up per request, like the files.
   */
  const pageFileFor = (url: string) => {
    const path = url.split('?', 1)[0];
    return path === '/workloads/new' && existsSync(join(webRoot, 'workloads-new.html'))
      ? 'workloads-new.html'
      : 'index.html';
  };
  app.setNotFoundHandler((request, reply) => {
    // A browser navigating asks for HTML; names may contain dots (`demo.v2`), so no extension test.
    const isPage =
      request.method === 'GET' &&
      !request.url.startsWith('/trpc') &&
      (request.headers.accept ?? '').includes('text/html');
    if (hasWeb && isPage)
      return reply
        .type('text/html')
        .header('cache-control', 'no-cache')
        .sendFile(pageFileFor(request.url));
    return reply.code(404).send({
      error: { message: `${request.method} ${request.url} not found`, code: 'NOT_FOUND' },
    });
  });

  await cluster.startInformers();
  allocations.start();
  history.start();
  const host = options.host ?? '127.0.0.1';
  const address = await app.listen({ port: options.port ?? 8080, host });
  const known = allowedOrigins(new URL(address).port, host, options.allowedOrigins ?? []);
  for (const name of known.hosts) allowed.hosts.add(name);
  for (const origin of known.origins) allowed.origins.add(origin);
  const metricsHost = options.metricsHost ?? '127.0.0.1';
  const metricsServer =
    metrics && options.metricsPort !== undefined
      ? await serveMetrics(metrics, {
          port: options.metricsPort,
          host: metricsHost,
          // The console's own Host allowlist, on the metrics port and address.
          allowedHosts: (port) => allowedOrigins(String(port), metricsHost, []).hosts,
          log: app.log,
        })
      : undefined;
  return {
    app,
    url: address,
    context,
    ...(sessions ? { sessions } : {}),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    close: async () => {
      await metricsServer?.close();
      subscriptions.close();
      allocations.stop();
      history.stop();
      await app.close();
      await cluster.stopInformers();
    },
  };
}
