/**
 * The embedded API server wants its bearer token on every request (issue 14), over plain HTTP
 * and over TLS on the same port; only the health endpoints answer without one, as
 * kube-apiserver's do. Sim-only: a real cluster's authentication is its own.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { authorizationFor, type EmbeddedCluster, startEmbeddedCluster } from '../embedded.js';
import { startApiServer } from './api-server.js';
import { KUBECTL } from './test-cluster.js';

let cluster: EmbeddedCluster;
let dir: string;
let kubeconfig: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-auth-'));
  cluster = await startEmbeddedCluster({ log: () => undefined });
  kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A request over plain HTTP or over TLS verified against the CA in the written kubeconfig. */
async function send(
  scheme: 'http' | 'https',
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const written = parse(await readFile(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  };
  const server = written.clusters[0]?.cluster;
  const base = scheme === 'https' ? (server?.server ?? '') : cluster.url;
  const ca = Buffer.from(server?.['certificate-authority-data'] ?? '', 'base64').toString();
  return new Promise((resolve, reject) => {
    const options = { method: init.method ?? 'GET', headers: init.headers ?? {} };
    const outgoing =
      scheme === 'https'
        ? https.request(new URL(path, base), { ...options, ca }, answer)
        : http.request(new URL(path, base), options, answer);
    function answer(response: http.IncomingMessage) {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString(),
          headers: response.headers,
        }),
      );
    }
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

function kubectl(config: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      ['--kubeconfig', config, ...args],
      { timeout: 30_000, env: { ...process.env, HOME: dir } },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          output: stdout + stderr,
        }),
    );
    child.stdin?.end();
  });
}

const PODS = '/api/v1/namespaces/default/pods';

describe.skipIf(onRealTier())('bearer token authentication', () => {
  describe.each(['http', 'https'] as const)('over %s', (scheme) => {
    it.each([
      ['no token', () => ({})],
      ['a wrong token', () => ({ authorization: 'Bearer wrong' })],
      ['the token without Bearer', () => ({ authorization: cluster.token })],
      ['a longer token', () => ({ authorization: `Bearer ${cluster.token}x` })],
    ])('refuses %s with a 401 Unauthorized Status', async (_, headers) => {
      const answer = await send(scheme, PODS, { headers: headers() });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'Unauthorized',
        code: 401,
      });
    });

    it('refuses a create without the token, and makes nothing', async () => {
      const answer = await send(scheme, PODS, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: `sneaky-${scheme}` }, spec: { containers: [] } }),
      });
      expect(answer.status).toBe(401);
      const list = await send(scheme, PODS, { headers: authorizationFor(cluster) });
      expect(list.body).not.toContain(`sneaky-${scheme}`);
    });

    it('answers with the token', async () => {
      const answer = await send(scheme, PODS, { headers: authorizationFor(cluster) });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ kind: 'PodList' });
    });

    // Node's own 5 s keep-alive made a client's reused connection meet the server's close (an
    // ECONNRESET on a create's dry run); the server keeps Fastify's 72 s, and says so.
    it('keeps idle connections as long as Fastify does, and tells the client', async () => {
      const answer = await send(scheme, PODS, {
        headers: { ...authorizationFor(cluster), connection: 'keep-alive' },
      });
      expect(answer.headers['keep-alive']).toBe('timeout=72');
    });

    it.each(['/healthz', '/livez', '/readyz'])('%s answers without a token', async (path) => {
      expect((await send(scheme, path)).status).toBe(200);
    });
  });

  it('closes a connection that never sends its first byte', async () => {
    const server = await startApiServer({ firstByteTimeoutMs: 100, controllerManager: false });
    try {
      const closed = await new Promise<boolean>((resolve) => {
        const socket = connect(server.port, '127.0.0.1');
        socket.on('close', () => resolve(true));
        socket.on('error', () => undefined);
      });
      expect(closed).toBe(true);
      const answer = await fetch(new URL(PODS, server.url), { headers: authorizationFor(server) });
      expect(answer.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('keeps answering after connections reset before and after their first byte', async () => {
    for (const first of [undefined, '\x16', 'G']) {
      await new Promise<void>((resolve) => {
        const socket = connect(cluster.port, '127.0.0.1', () => {
          if (first !== undefined) socket.write(first);
          setImmediate(() => socket.resetAndDestroy());
        });
        socket.on('close', () => resolve());
        socket.on('error', () => undefined);
      });
    }
    expect((await send('https', PODS, { headers: authorizationFor(cluster) })).status).toBe(200);
    expect((await send('http', PODS, { headers: authorizationFor(cluster) })).status).toBe(200);
  });

  it('writes a kubeconfig only its owner reads, for TLS with the CA and the token', async () => {
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);
    const written = parse(await readFile(kubeconfig, 'utf8')) as {
      clusters: { cluster: Record<string, unknown> }[];
      users: { user: { token?: string } }[];
    };
    expect(written.clusters[0]?.cluster).toMatchObject({
      server: `https://127.0.0.1:${cluster.port}`,
      'certificate-authority-data': expect.any(String),
    });
    expect(written.clusters[0]?.cluster['insecure-skip-tls-verify']).toBeFalsy();
    expect(written.users[0]?.user.token).toBe(cluster.token);
  });

  it('lets kubectl in through the written kubeconfig, and not with another token', {
    timeout: 60_000,
  }, async () => {
    const allowed = await kubectl(kubeconfig, ['get', 'nodes', '-o', 'name']);
    expect(allowed.output).toContain('node/');
    expect(allowed.code).toBe(0);

    const written = parse(await readFile(kubeconfig, 'utf8')) as {
      users: { user: Record<string, unknown> }[];
    };
    // A wrong token rather than none: without credentials kubectl asks for a user name.
    for (const user of written.users) user.user = { token: 'wrong' };
    const wrong = join(dir, 'wrong-token');
    await writeFile(wrong, stringify(written), { mode: 0o600 });
    const refused = await kubectl(wrong, ['get', 'nodes']);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('Unauthorized');
  });

  it('serves client-node over TLS through the written kubeconfig (the console with --kubeconfig)', async () => {
    const fromFile = new KubeConfig();
    fromFile.loadFromFile(kubeconfig);
    const nodes = await fromFile.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items.length).toBeGreaterThan(0);
    let watching: Promise<AbortController> | undefined;
    const seen = await new Promise<string>((resolve, reject) => {
      watching = new Watch(fromFile).watch(
        '/api/v1/nodes',
        { resourceVersion: '0' },
        (type) => resolve(type),
        reject,
      );
      watching.catch(reject);
    });
    (await watching)?.abort();
    expect(seen).toBe('ADDED');
  });

  it('serves in-process clients over plain HTTP with the token, and only with it', async () => {
    expect(cluster.kubeConfig.getCurrentCluster()?.server).toBe(cluster.url);
    const nodes = await cluster.kubeConfig.makeApiClient(CoreV1Api).listNode();
    expect(nodes.items.length).toBeGreaterThan(0);

    const anonymous = new KubeConfig();
    anonymous.loadFromClusterAndUser(
      { name: 'sim', server: cluster.url, skipTLSVerify: true },
      { name: 'anonymous' },
    );
    await expect(anonymous.makeApiClient(CoreV1Api).listNode()).rejects.toMatchObject({
      code: 401,
    });
  });
});
