/**
 * A Service in front of console replicas, for tests (issue 30): each request goes to the next
 * endpoint in turn, and one whose port refuses the connection (its process gone) is skipped for
 * the next, as kube-proxy stops sending to an endpoint that went away. Headers pass through as
 * they came (the Host too: a Service does not rewrite it, so each console is started with
 * `--allowed-origin` naming the proxy), and answers stream, so a server-sent event stream reaches
 * the client as it is written; when its console dies, the client's connection ends with it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The consoles' URLs requests go to, in turn; replaced as replicas restart on new ports. */
  setEndpoints(endpoints: readonly string[]): void;
  /** Which endpoint answered each request so far, in order (a refused one is never listed). */
  answeredBy(): readonly string[];
  close(): Promise<void>;
}

/** Errors of a connection that never reached a process: the next endpoint may serve it. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH']);

export async function startRoundRobinProxy(
  initial: readonly string[] = [],
): Promise<RoundRobinProxy> {
  let endpoints = [...initial];
  let turn = 0;
  const answered: string[] = [];

  const forward = (
    request: http.IncomingMessage,
    body: Buffer,
    response: http.ServerResponse,
    order: readonly string[],
  ) => {
    const [endpoint, ...rest] = order;
    if (endpoint === undefined) {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('no endpoint answered');
      return;
    }
    const target = new URL(request.url ?? '/', endpoint);
    // A connection of its own per request (no pooled socket): one that was refused never got
    // to a console, so it is safe to send to the next.
    const upstream = http.request(target, {
      method: request.method,
      headers: { ...request.headers, connection: 'close' },
      agent: false,
    });
    let connected = false;
    upstream.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    upstream.on('response', (answer) => {
      answered.push(endpoint);
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      // No buffering between the console and the client: SSE frames go out as they arrive.
      response.flushHeaders();
      answer.on('data', (chunk: Buffer) => response.write(chunk));
      answer.on('end', () => response.end());
      // The console died mid-answer: the client's connection ends too, as a pod's would.
      answer.on('aborted', () => response.destroy());
      answer.on('error', () => response.destroy());
      response.on('close', () => answer.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && UNREACHABLE.has(error.code ?? '')) forward(request, body, response, rest);
      else response.destroy();
    });
    upstream.end(body);
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const start = turn++ % Math.max(1, endpoints.length);
      const order = [...endpoints.slice(start), ...endpoints.slice(0, start)];
      forward(request, Buffer.concat(chunks), response, order);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setEndpoints(next) {
      endpoints = [...next];
    },
    answeredBy: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
