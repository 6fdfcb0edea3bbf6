import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { CardPolicy } from '@mgpu/shared';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { ClusterClient } from './cluster/cluster-client.js';
import { type ClusterConnection, describeSource } from './cluster/connection.js';
import { AllocationFeed } from './live/allocation-feed.js';
import { type AppRouter, appRouter } from './router.js';
import type { BffContext } from './trpc/context.js';

export interface BffOptions {
  connection: ClusterConnection;
  port?: number;
  host?: string;
  /** When set, every `/trpc` request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** The built web app; its index.html answers every unknown GET (SPA routes). */
  webRoot?: string;
  cardPolicy?: CardPolicy;
  /** Largest request body in bytes (413 above it). */
  bodyLimit?: number;
  logger?: FastifyServerOptions['logger'];
}

export interface RunningBff {
  app: FastifyInstance;
  url: string;
  context: BffContext;
  close(): Promise<void>;
}

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

  await app.register(helmet, { contentSecurityPolicy: CONTENT_SECURITY_POLICY, global: true });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/trpc')) return;
    if (
      options.token !== undefined &&
      request.headers.authorization !== `Bearer ${options.token}`
    ) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({
          error: {
            message: 'This console needs a bearer token: Authorization: Bearer <token>.',
            code: 'UNAUTHORIZED',
          },
        });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS') {
      // Mutations must come from this origin: a browser always sends Origin on a POST.
      const origin = request.headers.origin;
      const expected = `${request.protocol}://${request.headers.host ?? ''}`;
      if (origin !== expected) {
        request.log.warn({ origin, expected }, 'mutation refused: Origin does not match');
        return reply.code(403).send({
          error: {
            message: origin
              ? `Origin ${origin} may not call mutations here; expected ${expected}.`
              : `Mutations need an Origin header matching ${expected} (browsers send it; scripts add -H 'Origin: ${expected}').`,
            code: 'FORBIDDEN',
          },
        });
      }
    }
  });

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

  await app.register(fastifyTRPCPlugin, {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: () => context,
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR')
          app.log.error({ err: error, path }, 'procedure failed');
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });

  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT;
  const hasWeb = existsSync(join(webRoot, 'index.html'));
  if (hasWeb) await app.register(fastifyStatic, { root: webRoot, wildcard: false });
  app.setNotFoundHandler((request, reply) => {
    const isPage =
      request.method === 'GET' &&
      !request.url.startsWith('/trpc') &&
      !/\.\w+$/.test(request.url.split('?')[0] ?? '');
    if (hasWeb && isPage) return reply.type('text/html').sendFile('index.html');
    return reply.code(404).send({
      error: { message: `${request.method} ${request.url} not found`, code: 'NOT_FOUND' },
    });
  });

  await cluster.startInformers();
  allocations.start();
  const address = await app.listen({
    port: options.port ?? 8080,
    host: options.host ?? '127.0.0.1',
  });
  return {
    app,
    url: address,
    context,
    close: async () => {
      allocations.stop();
      await app.close();
      await cluster.stopInformers();
    },
  };
}
