import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { type CardPolicy, VKE } from '@mgpu/shared';
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
import { AllocationFeed } from './live/allocation-feed.js';
import { AllocationsWatchInputSchema } from './procedures/allocations-watch.js';
import { WorkloadProgressInputSchema } from './procedures/workload-progress.js';
import { type AppRouter, appRouter } from './router.js';
import type { BffContext } from './trpc/context.js';
import { SSE_TIMING } from './trpc/init.js';
import { mutationHook } from './trpc/mutation-transport.js';
import { SseTransport } from './trpc/sse-transport.js';

export interface BffOptions {
  connection: ClusterConnection;
  port?: number;
  host?: string;
  /** When set, every `/trpc` request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** The built web app; its index.html answers every unknown GET (SPA routes). */
  webRoot?: string;
  cardPolicy?: CardPolicy;
  /** The node label naming the GPU model (default: VKE's). */
  modelLabel?: string;
  /**
   * Origins besides the console's own loopback address that may call it (e.g.
   * `https://gpu-console.example.com` behind a proxy); their hosts are accepted too.
   */
  allowedOrigins?: string[];
  /** Largest request body in bytes (413 above it). */
  bodyLimit?: number;
  /** Unread SSE bytes after which a slow subscriber is cut off (it resumes by `Last-Event-ID`). */
  maxBufferedEventBytes?: number;
  logger?: FastifyServerOptions['logger'];
}

export interface RunningBff {
  app: FastifyInstance;
  url: string;
  context: BffContext;
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

const sameSecret = (given: string | undefined, expected: string) => {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** The cookie a browser holds once its operator typed the token (EventSource sends no headers). */
export const SESSION_COOKIE = 'mgpu_console_session';

/**
 * What is needed to call `/trpc`: nothing, or the bearer token — as an `Authorization` header
 * (scripts) or as the session cookie `/session` hands out for it (the browser). The cookie holds
 * an HMAC of the token, not the token: it stays valid across restarts with the same token and
 * stops working when the token changes.
 */
class Access {
  readonly session: string | undefined;
  constructor(readonly token: string | undefined) {
    this.session =
      token === undefined
        ? undefined
        : createHmac('sha256', token).update('mgpu-console session v1').digest('base64url');
  }

  get required(): boolean {
    return this.token !== undefined;
  }

  grants(request: FastifyRequest): boolean {
    if (this.token === undefined || this.session === undefined) return true;
    return (
      sameSecret(request.headers.authorization, `Bearer ${this.token}`) ||
      sameSecret(request.cookies[SESSION_COOKIE], this.session)
    );
  }
}

/** Subscriptions answer over SSE with status 200 before their input is read: check it first. */
const SUBSCRIPTION_INPUTS: Record<string, z.ZodType> = {
  'allocations.watch': AllocationsWatchInputSchema,
  'workload.progress': WorkloadProgressInputSchema,
};

const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ error: { message, code } });

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
function guardTrpc(allowed: () => AllowedOrigins, access: Access) {
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
    if (!access.grants(request)) {
      reply.header('www-authenticate', 'Bearer');
      return refuse(
        reply,
        401,
        'UNAUTHORIZED',
        'This console needs a bearer token: Authorization: Bearer <token> (browsers sign in at /session).',
      );
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      return checkOrigin(request, reply);
    }
    const procedure = (request.params as { path?: string }).path ?? '';
    const schema = SUBSCRIPTION_INPUTS[procedure];
    if (schema !== undefined) {
      const text = (request.query as { input?: string }).input;
      let input: unknown;
      try {
        input = text === undefined ? undefined : JSON.parse(text);
      } catch {
        return refuse(reply, 400, 'PARSE_ERROR', `The input of ${procedure} is not JSON.`);
      }
      const parsed = schema.safeParse(input);
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

/**
 * `/session`: how the browser signs in when the console has a token. GET says whether a token
 * is needed and whether this browser has signed in; POST `{ token }` sets the session cookie
 * (HttpOnly, SameSite=Strict: scripts on other sites can neither read nor send it); DELETE signs
 * out. The Host and Origin checks are the same as for `/trpc`.
 */
function registerSession(app: FastifyInstance, access: Access, allowed: () => AllowedOrigins) {
  const checkOrigin = originCheck(allowed);
  const misdirected = (request: FastifyRequest, reply: FastifyReply) =>
    allowed().hosts.has(request.headers.host ?? '')
      ? undefined
      : refuse(reply, 421, 'MISDIRECTED', 'This console does not answer under that name.');
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: 'auto',
  } as const;
  app.get('/session', async (request, reply) => {
    if (misdirected(request, reply)) return reply;
    reply.header('cache-control', 'no-store');
    return { required: access.required, signedIn: access.grants(request) };
  });
  app.post('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    const parsed = SessionInputSchema.safeParse(request.body);
    if (!parsed.success)
      return refuse(reply, 400, 'BAD_REQUEST', 'Send the token as JSON: { "token": "…" }.');
    if (access.session === undefined) return { required: false, signedIn: true };
    if (!sameSecret(parsed.data.token, access.token ?? '')) {
      request.log.warn('sign-in refused: wrong token');
      return refuse(reply, 401, 'UNAUTHORIZED', "That is not this console's token.");
    }
    reply.setCookie(SESSION_COOKIE, access.session, cookieOptions);
    return { required: true, signedIn: true };
  });
  app.delete('/session', async (request, reply) => {
    if (misdirected(request, reply) || checkOrigin(request, reply)) return reply;
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return { required: access.required, signedIn: !access.required };
  });
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
  const cluster = new ClusterClient(options.connection.kubeConfig);
  const allocations = new AllocationFeed(cluster);
  const context: BffContext = {
    cluster,
    source: options.connection.source,
    allocations,
    cardPolicy: options.cardPolicy ?? 'binpack',
    modelLabel: options.modelLabel ?? VKE.defaultModelLabel,
  };
  const app = Fastify({
    logger: options.logger ?? { level: 'info' },
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
  const access = new Access(options.token);
  // Filled in once the server listens (port 0 in tests); no request arrives before that.
  const guard = guardTrpc(() => allowed, access);
  await app.register(cookie);
  registerSession(app, access, () => allowed);
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

  const createContext = () => context;
  const onError = (error: TRPCError, path: string | undefined) => {
    if (error.code === 'INTERNAL_SERVER_ERROR')
      app.log.error({ err: error, path }, 'procedure failed');
  };
  const subscriptions = new SseTransport({
    router: appRouter,
    createContext,
    ...SSE_TIMING,
    maxBufferedBytes: options.maxBufferedEventBytes ?? 8 * 1024 * 1024,
    onError: (error, path) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        app.log.error({ err: error, path }, 'subscription failed');
    },
  });

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
        createContext,
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
  const host = options.host ?? '127.0.0.1';
  const address = await app.listen({ port: options.port ?? 8080, host });
  const known = allowedOrigins(new URL(address).port, host, options.allowedOrigins ?? []);
  for (const name of known.hosts) allowed.hosts.add(name);
  for (const origin of known.origins) allowed.origins.add(origin);
  return {
    app,
    url: address,
    context,
    close: async () => {
      subscriptions.close();
      allocations.stop();
      await app.close();
      await cluster.stopInformers();
    },
  };
}
