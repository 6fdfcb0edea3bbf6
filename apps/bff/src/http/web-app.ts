import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export const DEFAULT_WEB_ROOT = resolve(import.meta.dirname, '..', '..', '..', 'web', 'dist');

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

/** Security headers on every answer (the API's too). */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    // Served over plain HTTP (loopback, or behind a proxy that owns TLS): asking browsers to
    // upgrade or pin HTTPS would break the console itself.
    strictTransportSecurity: false,
    global: true,
  });
}

/**
 * The built web app: its files, and for every unknown page a browser navigates to its
 * index.html (SPA routes). Register last: the not-found handler answers whatever is left.
 */
export async function registerWebApp(app: FastifyInstance, webRoot: string): Promise<void> {
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
}
