import type { BffContext } from '@mgpu/api';
import { type AppRouter, appRouter } from '@mgpu/api';
import type { TRPCError } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { singleCallHook } from '../trpc/single-call-transport.js';
import type { SseTransport } from '../trpc/sse-transport.js';

/**
 * `/trpc`: the guard first, then subscriptions through the SSE fan-out, single queries and
 * mutations without tRPC's fetch adapter, and everything else through tRPC's Fastify plugin.
 * The guard sits in the same scope as the routes, so it runs on whatever URL spelling Fastify
 * routes to them (`/%74rpc/…` included).
 */
export async function registerTrpc(
  app: FastifyInstance,
  parts: {
    guard: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
    subscriptions: SseTransport<AppRouter>;
    createContext: (request: FastifyRequest) => BffContext;
    onError: (error: TRPCError, path: string | undefined) => void;
  },
): Promise<void> {
  const { guard, subscriptions, createContext, onError } = parts;
  // The web app sends large previews as POST (a GET URL is limited); GET keeps working.
  const allowMethodOverride = true;
  await app.register(async (scope) => {
    scope.addHook('onRequest', guard);
    // Subscriptions (input already checked by the guard) stream through the fan-out transport.
    scope.addHook('onRequest', subscriptions.hook());
    // A single query or mutation (a read, a create) is answered without tRPC's fetch adapter.
    scope.addHook(
      'preHandler',
      singleCallHook({ router: appRouter, createContext, onError, allowMethodOverride }),
    );
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: appRouter,
        createContext: ({ req }) => createContext(req),
        allowMethodOverride,
        onError: ({ error, path }) => onError(error, path),
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });
}
