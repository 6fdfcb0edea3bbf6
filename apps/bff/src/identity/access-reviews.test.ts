import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { AccessReviews } from '@mgpu/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../test-support/embedded-cluster.js';
import { operatorWithToken } from '../test-support/operators.js';

/**
 * The cache against a real HTTP Kubernetes API: the embedded API server (whose reviews answer
 * allowed: true: one token, no RBAC) behind a proxy that counts the reviews that reach it and
 * can drop connections. Denials by RBAC are tested on the real tier (filtered-reads.test.ts).
 */
let api: ApiServer;
let proxy: http.Server;
let proxyUrl: string;
const reviews: { authorization: string | undefined; body: string }[] = [];
let down = false;

beforeAll(async () => {
  api = await startApiServer();
  const upstream = new URL(api.url);
  proxy = http.createServer((request, response) => {
    if (down) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.url?.endsWith('/selfsubjectaccessreviews'))
        reviews.push({ authorization: request.headers.authorization, body: body.toString() });
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await api.close();
});

beforeEach(() => {
  reviews.length = 0;
  down = false;
});

const viaProxy = () => {
  const kubeConfig = new KubeConfig();
  // Plain HTTP to loopback: client-node wants TLS verification (vacuously) skipped for it.
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'proxy', server: proxyUrl, skipTLSVerify: true }],
    users: [{ name: 'none' }],
    contexts: [{ name: 'proxy', cluster: 'proxy', user: 'none' }],
    currentContext: 'proxy',
  });
  return kubeConfig;
};

const operator = (username: string, groups: string[] = []) =>
  operatorWithToken(viaProxy(), api.token, username, groups);

describe('AccessReviews', () => {
  it('asks the API server once per key, with the operator’s own token, however many ask at once', async () => {
    const cache = new AccessReviews();
    const alice = operator('alice');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => cache.mayListPods(alice, 'team-a')),
    );
    expect(answers.every(Boolean)).toBe(true);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.authorization).toBe(`Bearer ${api.token}`);
    expect(JSON.parse(reviews[0]?.body ?? '{}')).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'team-a' } },
    });
  });

  it('keeps one decision per user, groups, namespace, verb and resource', async () => {
    const cache = new AccessReviews();
    const alice = operator('alice');
    await cache.mayListPods(alice, 'team-a');
    await cache.mayListPods(alice, 'team-b');
    await cache.mayListNodes(alice);
    await cache.allows(alice, { verb: 'watch', resource: 'pods', namespace: 'team-a' });
    await cache.mayListPods(operator('bob'), 'team-a');
    await cache.mayListPods(operator('alice', ['gpu-admins']), 'team-a');
    expect(reviews).toHaveLength(6);
    // Asked again while fresh: all from the cache.
    await cache.mayListPods(alice, 'team-a');
    await cache.mayListNodes(operator('alice'));
    expect(reviews).toHaveLength(6);
    expect(JSON.parse(reviews[2]?.body ?? '{}').spec.resourceAttributes).toEqual({
      verb: 'list',
      resource: 'nodes',
      group: '',
    });
  });

  it('asks again once a decision is older than the TTL', async () => {
    let clock = 1_000_000;
    const cache = new AccessReviews({ ttlMs: 5_000, now: () => clock });
    const alice = operator('alice');
    await cache.mayListPods(alice, 'team-a');
    clock += 4_999;
    await cache.mayListPods(alice, 'team-a');
    expect(reviews).toHaveLength(1);
    clock += 1;
    await cache.mayListPods(alice, 'team-a');
    expect(reviews).toHaveLength(2);
  });

  it('answers no when the review fails, and does not keep that answer', async () => {
    const cache = new AccessReviews();
    const alice = operator('alice');
    down = true;
    expect(await cache.mayListPods(alice, 'team-a')).toBe(false);
    down = false;
    expect(await cache.mayListPods(alice, 'team-a')).toBe(true);
    expect(reviews).toHaveLength(1);
  });
});
