import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import { SNAPSHOT_PART_SIZE, VKE } from '@mgpu/shared';
import type { TRPCError } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyRequest } from 'fastify';
import type { BffOptions, RunningBff } from './bff-options.js';
import { ClusterClient } from './cluster/cluster-client.js';
import { ClusterViews } from './cluster/cluster-views.js';
import { registerHealth } from './http/health.js';
import { withRedaction } from './http/logging.js';
import { type AllowedOrigins, allowedOrigins, guardTrpc } from './http/trpc-guard.js';
import { fastifyTrustProxy } from './http/trust-proxy.js';
import { DEFAULT_WEB_ROOT, registerSecurityHeaders, registerWebApp } from './http/web-app.js';
import { AccessReviews } from './identity/access-reviews.js';
import { ConsoleAccess } from './identity/console-token.js';
import { registerOidcRoutes } from './identity/oidc-routes.js';
import { OidcSignIn } from './identity/oidc-sign-in.js';
import type { Operator } from './identity/operator.js';
import {
  endStreamsOnSignOut,
  operatorAccessFor,
  sessionStoreFor,
  streamAdmission,
} from './identity/operator-streams.js';
import { SESSION_COOKIE, sessionCookieOptions } from './identity/session-cookie.js';
import { registerSessionRoutes } from './identity/session-routes.js';
import { SignInThrottle } from './identity/sign-in-throttle.js';
import { AllocationFeed } from './live/allocation-feed.js';
import { PoolHistory } from './live/pool-history.js';
import { ConsoleMetrics } from './observability/metrics.js';
import { serveMetrics } from './observability/metrics-server.js';
import { type AppRouter, appRouter } from './router.js';
import type { BffContext } from './trpc/context.js';
import { SSE_TIMING } from './trpc/init.js';
import { mutationHook } from './trpc/mutation-transport.js';
import { SseTransport } from './trpc/sse-transport.js';

export type { BffOptions, RunningBff } from './bff-options.js';
export { allowedOrigins } from './http/trpc-guard.js';

/**
 * The BFF: tRPC at /trpc (plain JSON, SSE subscriptions), sign-in, health endpoints and the web
 * app, behind security headers, a body limit, the request guard and an optional `/metrics`.
 * This file only wires the parts together; each part's why is in its own module.
 */
export async function startBff(options: BffOptions): Promise<RunningBff> {
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const cluster = new ClusterClient(options.connection.kubeConfig, { modelLabel });
  const allocations = new AllocationFeed(cluster, {
    onInvalidRecord: (id, error) =>
      app.log.error({ record: id, issues: error.issues }, 'allocation record left out: invalid'),
  });
  const cardPolicy = options.cardPolicy ?? 'binpack';
  const views = new ClusterViews(cluster, { modelLabel, cardPolicy });
  const history = new PoolHistory(views, options.history);
  const context: BffContext = {
    cluster,
    source: options.connection.source,
    allocations,
    views,
    snapshotPartSize: options.snapshotPartSize ?? SNAPSHOT_PART_SIZE,
    history,
    cardPolicy,
    accessReviews: new AccessReviews(
      options.accessReviewTtlMs !== undefined ? { ttlMs: options.accessReviewTtlMs } : {},
    ),
    modelLabel,
    ...(options.reservedNamespaces ? { reservedNamespaces: options.reservedNamespaces } : {}),
    // One JSON line per mutation, sign-in and sign-out (spec §8), as `{ audit: … }`.
    audit: (entry) => app.log.info({ audit: entry }, 'audit'),
  };
  const audit = context.audit ?? (() => {});
  // Checked before anything starts: an empty or short --token never means "no sign-in".
  const sessions = sessionStoreFor(options);
  const access = new ConsoleAccess(
    options.token,
    options.sessionMaxAgeSeconds ?? 12 * 60 * 60,
    operatorAccessFor(options, sessions),
    options.auth,
  );
  const timeouts = { requestMs: 30_000, headersMs: 10_000, ...options.timeouts };
  const app = Fastify({
    logger: withRedaction(options.logger ?? { level: 'info' }),
    // Forwarded headers only from the proxies `--trust-proxy` names: `request.ip` (the throttle's
    // key) and `request.protocol` (Secure cookies) are otherwise the peer's own.
    ...(options.trustProxy !== undefined
      ? { trustProxy: fastifyTrustProxy(options.trustProxy) }
      : {}),
    // Node cuts a request not fully received in time (408); once it is, the timer stops, so a
    // long-lived SSE response is not affected. Checked every second rather than every 30.
    requestTimeout: timeouts.requestMs,
    http: {
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
  await registerSecurityHeaders(app);

  // Known once the server listens (port 0 in tests): the origins this console answers as.
  const allowed: AllowedOrigins = { hosts: new Set(), origins: new Set() };
  // Who each admitted request is (per-user auth): the guard finds out, createContext reads it.
  const operators = new WeakMap<FastifyRequest, Operator>();
  const throttle = new SignInThrottle(options.signInAttemptsPerMinute ?? 10);
  await app.register(cookie);
  registerSessionRoutes(app, access, () => allowed, throttle, audit);
  if (options.auth === 'oidc' && access.operators) {
    if (!options.oidc) throw new Error('--auth oidc needs --oidc-issuer and --oidc-client-id');
    registerOidcRoutes(app, {
      // Before listening: a console no operator could sign in to says so at start.
      signIn: await OidcSignIn.discover(options.oidc),
      operators: access.operators,
      sessionCookie: SESSION_COOKIE,
      cookieOptions: sessionCookieOptions,
      knownHost: (host) => allowed.hosts.has(host ?? ''),
      throttle,
      audit,
    });
  }
  registerHealth(app, cluster, options.connection.source);

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
  const subscriptions = new SseTransport({
    router: appRouter,
    createContext,
    ...SSE_TIMING,
    maxBufferedBytes: options.maxBufferedEventBytes ?? 8 * 1024 * 1024,
    ...streamAdmission(access, sessions),
    onError: (error, path) => {
      if (error.code === 'INTERNAL_SERVER_ERROR')
        app.log.error({ err: error, path }, 'subscription failed');
    },
  });
  endStreamsOnSignOut(access, sessions, subscriptions);
  const metrics =
    options.metricsPort === undefined
      ? undefined
      : new ConsoleMetrics({
          views,
          allocations,
          router: appRouter,
          sseSubscribers: () => subscriptions.streams,
        });
  if (metrics) app.addHook('onResponse', metrics.onResponse);

  // The guard sits in the same scope as tRPC's routes, so it runs on whatever URL spelling
  // Fastify routes to them (`/%74rpc/…` included).
  await app.register(async (scope) => {
    scope.addHook(
      'onRequest',
      guardTrpc(appRouter, () => allowed, access, operators, throttle),
    );
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
  await registerWebApp(app, options.webRoot ?? DEFAULT_WEB_ROOT);

  const host = options.host ?? '127.0.0.1';
  const metricsHost = options.metricsHost ?? '127.0.0.1';
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  const stop = async () => {
    await metricsServer?.close();
    subscriptions.close();
    allocations.stop();
    history.stop();
    await app.close();
    await cluster.stopInformers();
  };
  try {
    await cluster.startInformers();
    allocations.start();
    history.start();
    const address = await app.listen({ port: options.port ?? 8080, host });
    const known = allowedOrigins(new URL(address).port, host, options.allowedOrigins ?? []);
    for (const name of known.hosts) allowed.hosts.add(name);
    for (const origin of known.origins) allowed.origins.add(origin);
    if (metrics && options.metricsPort !== undefined)
      metricsServer = await serveMetrics(metrics, {
        port: options.metricsPort,
        host: metricsHost,
        // The console's own Host allowlist, on the metrics port and address.
        allowedHosts: (port) => allowedOrigins(String(port), metricsHost, []).hosts,
        log: app.log,
      });
    return {
      app,
      url: address,
      context,
      ...(sessions ? { sessions } : {}),
      ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
      close: stop,
    };
  } catch (error) {
    // A start that fails (a port in use, a cluster that never syncs) stops what it started, so a
    // caller that goes on — a test, a benchmark, a retry — is left no informers or timers.
    await stop().catch(() => {});
    throw error;
  }
}
