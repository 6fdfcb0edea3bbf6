/**
 * The one-port transport itself (authentication.test.ts covers it behind the whole API server):
 * which paths pass without the token, and that a TLS connection is served under the same
 * timeouts and error handling as a plain one.
 */
import http, { type RequestListener, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiTransport, createApiTransport, type ServerTimeouts } from './transport.js';

let transport: ApiTransport;
beforeAll(async () => {
  transport = await createApiTransport({ host: '127.0.0.1' });
});

/** How many `error` listeners the socket of each request had (what Node's own server leaves). */
const errorListeners: RequestListener = (request, response) => {
  response.end(String(request.socket.listenerCount('error')));
};

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closing(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A GET with the path as written (a URL would resolve `..` before it is sent). */
function get(
  scheme: 'http' | 'https',
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const ca = transport.certificate.certificateAuthority;
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers, agent: false };
    const answer = (response: http.IncomingMessage) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    };
    const sent =
      scheme === 'https' ? https.get({ ...options, ca }, answer) : http.get(options, answer);
    sent.on('error', reject);
  });
}

describe('the health paths open without the token', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = transport.serverFactory((_request, response) => response.end('ok'), {});
    port = await listening(server);
  });
  afterAll(() => closing(server));

  it.each([
    '/healthz',
    '/livez',
    '/readyz',
    '/healthz?verbose',
    '/readyz?exclude=etcd&verbose',
    '/livez/ping',
    '/healthz/log',
    '/readyz/poststarthook/start-informers',
  ])('%s', async (path) => {
    expect((await get('http', port, path)).status).toBe(200);
  });

  it.each([
    '/healthzX',
    '/healthz/',
    '/readyz/../api/v1/namespaces/default/pods',
    '/readyz/%2e%2e/api/v1/pods',
    '/livez//api',
    '/api/v1/pods?x=/healthz',
    '/apis/healthz',
  ])('but not %s', async (path) => {
    expect((await get('http', port, path)).status).toBe(401);
    expect(
      (await get('http', port, path, { authorization: `Bearer ${transport.token}` })).status,
    ).toBe(200);
  });
});

describe.each(['http', 'https'] as const)('a connection over %s', (scheme) => {
  let server: Server;
  let port: number;
  const timeouts: ServerTimeouts = {
    headersTimeout: 200,
    requestTimeout: 400,
    connectionsCheckingInterval: 50,
  };
  beforeAll(async () => {
    server = transport.serverFactory(errorListeners, timeouts);
    port = await listening(server);
  });
  afterAll(() => closing(server));

  it('is closed when its headers never finish (the headers timeout holds)', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const onOpen = () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      const socket =
        scheme === 'https'
          ? connectTls(
              { host: '127.0.0.1', port, ca: transport.certificate.certificateAuthority },
              onOpen,
            )
          : connect(port, '127.0.0.1', onOpen);
      socket.on('close', () => resolve(true));
      socket.on('error', () => undefined);
      socket.resume();
    });
    expect(closed).toBe(true);
  });

  it('keeps serving after a client resets once its connection is served', async () => {
    await new Promise<void>((resolve) => {
      const raw = connect(port, '127.0.0.1', () => {
        const ca = transport.certificate.certificateAuthority;
        const socket =
          scheme === 'https' ? connectTls({ socket: raw, ca, servername: 'localhost' }) : raw;
        socket.on('error', () => undefined);
        const request = () => {
          socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
          // A reset of the TCP connection itself, under TLS too.
          setImmediate(() => raw.resetAndDestroy());
        };
        if (scheme === 'https') socket.once('secureConnect', request);
        else request();
      });
      raw.on('close', () => resolve());
      raw.on('error', () => undefined);
    });
    expect((await get(scheme, port, '/healthz')).status).toBe(200);
  });

  it('is served with the error handling a plain Node server gives it, no sniffer’s left', async () => {
    const baseline =
      scheme === 'https'
        ? https.createServer(
            { cert: transport.certificate.certificate, key: transport.certificate.key },
            errorListeners,
          )
        : http.createServer(errorListeners);
    const baselinePort = await listening(baseline);
    try {
      const expected = (await get(scheme, baselinePort, '/healthz')).body;
      expect((await get(scheme, port, '/healthz')).body).toBe(expected);
    } finally {
      await closing(baseline);
    }
  });
});
