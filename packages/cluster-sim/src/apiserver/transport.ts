/**
 * How clients reach the embedded API server: one loopback port that speaks both plain HTTP and
 * TLS, and a bearer token on every request (issue 14: without it any local process could list
 * and create around the console's `--token`).
 *
 * Both are needed because kubectl (client-go) sends a kubeconfig user's token only over TLS,
 * while the in-process console and controllers are cheaper over plain HTTP. The first byte of a
 * connection tells them apart: a TLS record starts with 0x16 (handshake), an HTTP request with a
 * method's letter.
 */
import { randomBytes, webcrypto } from 'node:crypto';
import {
  Server as HttpServer,
  type IncomingMessage,
  type RequestListener,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { isIP, type Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import { bearerCheck } from '@mgpu/kube-client';
import * as x509 from '@peculiar/x509';
import { ApiError } from './status.js';

const TLS_HANDSHAKE_RECORD = 0x16;

/**
 * kube-apiserver lets anonymous requests reach its health checks (the `system:public-info-viewer`
 * role), so probes need no credentials; they tell nothing about the cluster's objects. Each
 * check's own path (`/livez/ping`, `/readyz/poststarthook/start-informers`) and a query
 * (`/healthz?verbose`) are part of that; nothing else is: names of letters, digits and dashes
 * only, so no `..`, `%2e` or empty segment can walk from here to an API path.
 */
const PUBLIC_PATH = /^\/(?:healthz|livez|readyz)(?:\/[A-Za-z0-9-]+)*$/;

export interface ApiTransportOptions {
  /** The bearer token every request must carry; 32 random bytes if absent. */
  token?: string;
  /** The names the serving certificate is for. */
  host: string;
  /** The certificate of an earlier start, so that clients keep trusting a restarted server. */
  certificate?: ServingCertificate;
  /** How long a new connection may stay silent before its first byte (default 10 s). */
  firstByteTimeoutMs?: number;
}

/** As long as the console gives a request for its headers: silence past it holds no socket. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

export interface ApiTransport {
  token: string;
  certificate: ServingCertificate;
  /** Fastify's `serverFactory`: a server that answers both HTTP and TLS on its one port. */
  serverFactory(handler: RequestListener, options: ServerTimeouts): HttpServer;
}

/**
 * The timeouts Fastify gives a server it makes itself but not one from a `serverFactory`. Without
 * them Node's 5 s keep-alive applied instead of Fastify's 72 s, and a client reusing a connection
 * the server was closing at that moment got ECONNRESET (a create's dry run failed so in e2e).
 * `headersTimeout` and `connectionsCheckingInterval` are Node's own (60 s, 30 s when unset).
 */
export interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  headersTimeout?: number;
  connectionsCheckingInterval?: number;
}

/** Only the options set: an `undefined` would override Node's default. */
function serverOptions(options: ServerTimeouts): ServerOptions {
  const { keepAliveTimeout, requestTimeout, headersTimeout, connectionsCheckingInterval } = options;
  return Object.fromEntries(
    Object.entries({
      keepAliveTimeout,
      requestTimeout,
      headersTimeout,
      connectionsCheckingInterval,
    }).filter(([, value]) => value !== undefined),
  );
}

const UNAUTHORIZED = JSON.stringify(new ApiError(401, 'Unauthorized', 'Unauthorized').toStatus());

function refuse(response: ServerResponse): void {
  response.writeHead(401, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(UNAUTHORIZED),
  });
  response.end(UNAUTHORIZED);
}

/** PEM texts; `certificateAuthority` is what a kubeconfig's `certificate-authority-data` holds. */
export interface ServingCertificate {
  certificateAuthority: string;
  certificate: string;
  key: string;
}

/**
 * A CA of its own and a certificate it signs for the loopback names, made at every start: the
 * kubeconfig carries the CA, so kubectl verifies the server instead of skipping verification.
 */
async function servingCertificate(host: string): Promise<ServingCertificate> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const usages: webcrypto.KeyUsage[] = ['sign', 'verify'];
  const [caKeys, serverKeys] = await Promise.all([
    webcrypto.subtle.generateKey(algorithm, true, usages),
    webcrypto.subtle.generateKey(algorithm, true, usages),
  ]);
  // A minute back, for clocks that disagree a little; a year ahead, longer than any sim runs.
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const serial = () =>
    randomBytes(16)
      .toString('hex')
      .replace(/^[89a-f]/, '7');
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=mgpu-sim-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const names = new Set([host, '127.0.0.1', 'localhost']);
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=mgpu-sim',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.SubjectAlternativeNameExtension(
        [...names].map(
          (name): x509.JsonGeneralName =>
            isIP(name) ? { type: 'ip', value: name } : { type: 'dns', value: name },
        ),
      ),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  return {
    certificateAuthority: ca.toString('pem'),
    certificate: server.toString('pem'),
    key: x509.PemConverter.encode(key, 'PRIVATE KEY'),
  };
}

/**
 * The listening server: Fastify's plain HTTP server, whose connections are first sniffed; a TLS
 * one is decrypted by a `TLSSocket` and, once its handshake is done, served by this same server.
 * So every timeout it has (headers, request, keep-alive, idle) holds for both: a separate HTTPS
 * server that never listens would never run Node's header and request timers.
 */
class DualProtocolServer extends HttpServer {
  /** Raw connections being sniffed or under a TLSSocket: the HTTP server tracks neither. */
  private readonly untracked = new Set<Socket>();

  constructor(
    handler: RequestListener,
    tls: ServingCertificate,
    timeouts: ServerTimeouts,
    firstByteTimeoutMs: number,
  ) {
    super(serverOptions(timeouts), handler);
    if (timeouts.connectionTimeout !== undefined) this.setTimeout(timeouts.connectionTimeout);
    const secureContext = createSecureContext({ cert: tls.certificate, key: tls.key });
    const plain = this.listeners('connection') as ((socket: Socket) => void)[];
    this.removeAllListeners('connection');
    const serve = (socket: Socket) => {
      for (const listener of plain) listener.call(this, socket);
    };
    // Until a server owns the socket nobody listens for its errors: a client that resets then
    // must not crash the process. Removed at the hand-over, where the HTTP server's own takes over.
    const dropOnError = function (this: Socket) {
      this.destroy();
    };
    this.on('connection', (socket: Socket) => {
      this.untracked.add(socket);
      socket.once('close', () => this.untracked.delete(socket));
      socket.on('error', dropOnError);
      // Nothing times a socket before it is served: one that never speaks (or never finishes
      // its handshake) would be held until the client closes it.
      socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
      socket.once('data', (first: Buffer) => {
        // Put the byte back and let the chosen reader read the connection from its start.
        socket.pause();
        socket.unshift(first);
        if (first[0] !== TLS_HANDSHAKE_RECORD) {
          socket.setTimeout(0);
          socket.off('error', dropOnError);
          this.untracked.delete(socket);
          serve(socket);
          socket.resume();
          return;
        }
        // The TLS socket reads what the raw socket has buffered before reading from its handle.
        const secure = new TLSSocket(socket, {
          isServer: true,
          secureContext,
          ALPNProtocols: ['http/1.1'],
        });
        secure.on('error', dropOnError);
        secure.once('secure', () => {
          socket.setTimeout(0);
          secure.off('error', dropOnError);
          socket.off('error', dropOnError);
          serve(secure);
        });
      });
    });
  }

  override closeAllConnections(): void {
    super.closeAllConnections();
    for (const socket of this.untracked) socket.destroy();
    this.untracked.clear();
  }
}

/** The transport of one API server start: a new token (unless given) and a new certificate. */
export async function createApiTransport(
  transportOptions: ApiTransportOptions,
): Promise<ApiTransport> {
  const token = transportOptions.token ?? randomBytes(32).toString('base64url');
  const admits = bearerCheck(token);
  const tls = transportOptions.certificate ?? (await servingCertificate(transportOptions.host));
  const authenticated =
    (handler: RequestListener): RequestListener =>
    (request: IncomingMessage, response: ServerResponse) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      if (PUBLIC_PATH.test(path) || admits(request.headers.authorization)) {
        handler(request, response);
      } else {
        refuse(response);
      }
    };
  return {
    token,
    certificate: tls,
    serverFactory: (handler, options) =>
      new DualProtocolServer(
        authenticated(handler),
        tls,
        options,
        transportOptions.firstByteTimeoutMs ?? FIRST_BYTE_TIMEOUT_MS,
      ),
  };
}
