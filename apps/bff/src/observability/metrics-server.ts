import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { ConsoleMetrics } from './metrics.js';

/** What `/metrics` answers from: the answer's chunks and the registry's content type. */
export type MetricsAnswer = Pick<ConsoleMetrics, 'answer' | 'registry'>;

export interface MetricsServerOptions {
  /** 0: any free port. */
  port: number;
  /** The address to bind (`--metrics-host`, default loopback: a scrape target is no public page). */
  host: string;
  /**
   * The `Host` values this server answers to once bound on `port`: the console's own allowlist
   * (`allowedOrigins`), so a DNS-rebinding page cannot read the cluster's figures either.
   */
  allowedHosts(port: number): ReadonlySet<string>;
  /** The console's logger: a failed scrape is logged here, never echoed to the scraper. */
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
}

/**
 * A `Host` that is an IP literal (`10.1.2.3:9464`, `[fd00::1]:9464`): Prometheus in a cluster
 * scrapes pod addresses it cannot know in advance, and a rebinding page always sends a DNS name,
 * so an address typed as such needs no allowlist entry.
 */
function isAddressHost(host: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(host);
  if (bracketed) return isIP(bracketed[1] ?? '') === 6;
  return isIP(host.replace(/:\d{1,5}$/, '')) === 4;
}

/**
 * `/metrics` on a port of its own (spec §8 `--metrics-port`): a plain node server, so a scrape
 * never passes the console's auth, CSP or Origin checks, and the API port exposes nothing new.
 * It binds to `--metrics-host` (loopback unless the operator opens it) and checks `Host`.
 */
export async function serveMetrics(
  metrics: MetricsAnswer,
  options: MetricsServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const { host, log } = options;
  let hosts: ReadonlySet<string> = new Set();
  const server: Server = createServer((request, response) => {
    const given = request.headers.host ?? '';
    if (!hosts.has(given) && !isAddressHost(given)) {
      log.warn({ host: given }, 'metrics scrape refused: Host not allowed');
      response
        .writeHead(421, { 'content-type': 'text/plain' })
        .end('this metrics server does not answer under that name\n');
      return;
    }
    const path = (request.url ?? '/').split('?', 1)[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    metrics.answer().then(
      (chunks) => {
        let length = 0;
        for (const chunk of chunks) length += chunk.length;
        response.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'content-length': length,
        });
        // One writev to the socket: the chunks are sent as they are, never joined or encoded.
        response.cork();
        for (const chunk of chunks) response.write(chunk);
        response.uncork();
        response.end();
      },
      (error: unknown) => {
        // The message may name internals (a path, a cluster address): the log gets it, not the scraper.
        log.error({ err: error }, 'metrics scrape failed');
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end('metrics failed; see the console log\n');
      },
    );
  });
  // Prometheus keeps its connection between scrapes (every 15–60 s): Node's 5 s idle timeout
  // closed it under each next scrape, a race the scraper sees as a failed scrape.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : options.port;
  hosts = options.allowedHosts(bound);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
