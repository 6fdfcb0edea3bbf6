import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import type { BffOptions } from '../bff-options.js';
import { withRedaction } from './logging.js';
import { fastifyTrustProxy } from './trust-proxy.js';
import { registerSecurityHeaders } from './web-app.js';

/** The Fastify server with the console's limits, request ids and security headers. */
export async function createFastify(options: BffOptions): Promise<FastifyInstance> {
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
  return app;
}
