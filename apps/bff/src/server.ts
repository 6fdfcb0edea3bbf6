import type { Operator } from '@mgpu/api';
import { type AppRouter, appRouter, readUsage, SSE_TIMING, workloadUsageRows } from '@mgpu/api';
import { ALWAYS_LEADING } from '@mgpu/kube-client';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { BffOptions, RunningBff } from './bff-options.js';
import { createFastify } from './http/fastify-app.js';
import { registerHealth } from './http/health.js';
import { type AllowedOrigins, allowedOrigins, guardTrpc } from './http/trpc-guard.js';
import { registerTrpc } from './http/trpc-routes.js';
import { DEFAULT_WEB_ROOT, registerWebApp } from './http/web-app.js';
import { ConsoleAccess } from './identity/console-token.js';
import {
  browserSessionsFor,
  endStreamsOnSignOut,
  operatorAccessFor,
  streamAdmission,
} from './identity/operator-streams.js';
import { SessionSeal } from './identity/session-seal.js';
import { oidcSignInFor, registerSignIn } from './identity/sign-in.js';
import { SignInThrottle } from './identity/sign-in-throttle.js';
import { ConsoleMetrics } from './observability/metrics.js';
import { serveMetrics } from './observability/metrics-server.js';
import { consoleObjectsOf, revocationsFor } from './replicas/console-objects.js';
import { electionFor } from './replicas/leadership.js';
import { contextOfRequest, createConsoleContext } from './trpc/console-context.js';
import { SseTransport } from './trpc/sse-transport.js';

export type { BffOptions, RunningBff } from './bff-options.js';
export { allowedOrigins } from './http/trpc-guard.js';

/**
 * The BFF: tRPC at /trpc (plain JSON, SSE subscriptions), sign-in, health endpoints and the web
 * app, behind security headers, a body limit, the request guard and an optional `/metrics`.
 * This file only wires the parts together; each part's why is in its own module.
 */
export async function startBff(options: BffOptions): Promise<RunningBff> {
  const seal = options.sessionSeal ?? SessionSeal.ephemeral();
  const objects = consoleObjectsOf(options);
  // The server's log exists only below; the revocations log nothing before they start.
  let log: FastifyBaseLogger | undefined;
  const revocations = revocationsFor(options, seal, objects, {
    warn: (message) => log?.warn(message),
    info: (message) => log?.info(message),
  });
  // Before anything starts: an issuer that cannot be discovered stops the start.
  const oidc = await oidcSignInFor(options);
  const renew = oidc ? (refreshToken: string) => oidc.renew(refreshToken) : undefined;
  const sessions = browserSessionsFor(options, seal, revocations, renew);
  // Checked before anything starts: an empty or short --token never means "no sign-in".
  const access = new ConsoleAccess(
    options.token,
    options.sessionMaxAgeSeconds ?? 12 * 60 * 60,
    operatorAccessFor(options, sessions),
    options.auth,
    seal,
    revocations,
  );
  const server = await createFastify(options);
  log = server.log;
  const election = await electionFor(options, seal, objects, server.log);
  const elector = election?.elector;
  const context = createConsoleContext(
    options,
    server.log,
    election && { leadership: election.elector, store: election.store, replica: election.replica },
  );
  const { cluster, allocations, history, views } = context;
  const audit = context.audit ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const metricsHost = options.metricsHost ?? '127.0.0.1';
  let subscriptions: SseTransport<AppRouter> | undefined;
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  const stop = async () => {
    // The leader's last samples published, then the Lease released: the next leader continues
    // the history at once, not a lease duration later (a rolling upgrade loses no samples).
    await history.stop();
    await elector?.stop();
    await metricsServer?.close();
    revocations.stop();
    subscriptions?.close();
    allocations.stop();
    context.usage.source.close();
    await server.close();
    await cluster.stopInformers();
  };
  // Everything after the server exists is undone if any step fails (an issuer that cannot be
  // discovered, a port in use): a caller that goes on is left no timers, informers or sockets.
  try {
    // Known once the server listens (port 0 in tests): the origins this console answers as.
    const allowed: AllowedOrigins = { hosts: new Set(), origins: new Set() };
    // Who each admitted request is (per-user auth): the guard finds out, createContext reads it.
    const operators = new WeakMap<FastifyRequest, Operator>();
    const throttle = new SignInThrottle(options.signInAttemptsPerMinute ?? 10);
    await registerSignIn(server, {
      access,
      allowed: () => allowed,
      throttle,
      audit,
      seal,
      oidc,
    });
    registerHealth(server, cluster, options.connection.source, () => revocations.ready);

    const createContext = contextOfRequest(context, operators);
    const streams = new SseTransport({
      router: appRouter,
      createContext,
      ...SSE_TIMING,
      maxBufferedBytes: options.maxBufferedEventBytes ?? 8 * 1024 * 1024,
      ...streamAdmission(access, sessions),
      onError: (error, path) => {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          server.log.error({ err: error, path }, 'subscription failed');
      },
    });
    subscriptions = streams;
    endStreamsOnSignOut(access, sessions, streams);
    const metrics =
      options.metricsPort === undefined
        ? undefined
        : new ConsoleMetrics({
            views,
            allocations,
            router: appRouter,
            sseSubscribers: () => streams.streams,
            workloadUsage: async () => workloadUsageRows(context, await readUsage(context.usage)),
          });
    if (metrics) server.addHook('onResponse', metrics.onResponse);
    await registerTrpc(server, {
      guard: guardTrpc(appRouter, () => allowed, access, operators, throttle),
      subscriptions: streams,
      createContext,
      onError: (error, path) => {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          server.log.error({ err: error, path }, 'procedure failed');
      },
    });
    await registerWebApp(server, options.webRoot ?? DEFAULT_WEB_ROOT);

    await revocations.start();
    await cluster.startInformers();
    allocations.start();
    elector?.start();
    history.start();
    const address = await server.listen({ port: options.port ?? 8080, host });
    const known = allowedOrigins(new URL(address).port, host, options.allowedOrigins ?? []);
    for (const name of known.hosts) allowed.hosts.add(name);
    for (const origin of known.origins) allowed.origins.add(origin);
    if (metrics && options.metricsPort !== undefined)
      metricsServer = await serveMetrics(metrics, {
        port: options.metricsPort,
        host: metricsHost,
        // The console's own Host allowlist, on the metrics port and address.
        allowedHosts: (port) => allowedOrigins(String(port), metricsHost, []).hosts,
        log: server.log,
      });
    return {
      app: server,
      url: address,
      context,
      leadership: elector ?? ALWAYS_LEADING,
      ...(sessions ? { sessions } : {}),
      ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
      close: stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
