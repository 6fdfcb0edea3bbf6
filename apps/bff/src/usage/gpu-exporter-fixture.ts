/**
 * A small exporter for tests: serves fixed Prometheus text at `/metrics` over loopback, as
 * dcgm-exporter or any other exporter would, for a real Prometheus to scrape.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureExporter {
  /** `127.0.0.1:<port>`, a Prometheus scrape target. */
  target: string;
  close(): Promise<void>;
}

export async function serveMetricsText(text: string): Promise<FixtureExporter> {
  const server = createServer((request, response) => {
    if (request.url !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    target: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A card series line in dcgm-exporter's shape. */
export function dcgmLine(
  name: string,
  card: { node: string; index: number; uuid: string; model: string },
  value: number,
): string {
  return `${name}{gpu="${card.index}",UUID="${card.uuid}",device="nvidia${card.index}",modelName="${card.model}",Hostname="${card.node}"} ${value}`;
}

/** A per-instance series line in the embedded exporter's shape. */
export function instanceLine(
  name: string,
  instance: { node: string; card: number; namespace: string; pod: string; container: string },
  value: number,
): string {
  return `${name}{Hostname="${instance.node}",gpu="${instance.card}",namespace="${instance.namespace}",pod="${instance.pod}",container="${instance.container}"} ${value}`;
}
