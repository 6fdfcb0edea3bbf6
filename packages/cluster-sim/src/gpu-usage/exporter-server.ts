import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPOSITION_CONTENT_TYPE } from './exporter-text.js';

export interface GpuExporterServer {
  /** `http://127.0.0.1:<port>/metrics`, where Prometheus scrapes. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The embedded cluster's GPU exporter over HTTP: `GET /metrics` answers `text()` fresh on every
 * scrape, as dcgm-exporter does. Loopback only, like the embedded API itself.
 */
export async function serveGpuExporter(
  text: () => string,
  port = 0,
  host = '127.0.0.1',
): Promise<GpuExporterServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if ((request.method !== 'GET' && request.method !== 'HEAD') || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    const body = Buffer.from(text());
    response.writeHead(200, {
      'content-type': EXPOSITION_CONTENT_TYPE,
      'content-length': body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
