/**
 * `--auth kubernetes` on upstream kube-apiserver (run by tools/kube/run-real-suites.sh with
 * vitest.real.config.ts only): the embedded API server has one bearer token and no RBAC, so a
 * token review or a 403 of an operator's own can only be had here. Two namespaces; a service
 * account bound to `edit` in the first only, its token from the TokenRequest API.
 */
import http from 'node:http';
import { AppsV1Api } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BffHarness,
  seedRequest,
  startHarness,
  uniqueName,
} from '../test-support/bff-harness.js';
import { capturedLog } from '../test-support/captured-log.js';
import { createNamespaces, serviceAccountOperator } from '../test-support/operators.js';

if (!onRealTier())
  throw new Error(
    'operator-auth.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const ownNamespace = uniqueName('team-a');
const otherNamespace = uniqueName('team-b');
const account = 'alice';
const username = `system:serviceaccount:${ownNamespace}:${account}`;
let harness: BffHarness;
let token: string;
let deleteNamespaces: (() => Promise<void>) | undefined;
const log = capturedLog();
const logLines = log.lines;

beforeAll(async () => {
  harness = await startHarness({
    auth: 'kubernetes',
    logger: { level: 'info', stream: log.stream },
    // Bearer tokens are asked about again after a second, so a revocation shows within a few
    // of the stream transport's ticks; the tests wait for it, they do not time it.
    bearerReviewSeconds: 1,
  });
  const admin = harness.adminKubeConfig;
  deleteNamespaces = await createNamespaces(admin, [ownNamespace, otherNamespace]);
  const alice = await serviceAccountOperator(admin, ownNamespace, account);
  await alice.bind('edit', ownNamespace);
  token = alice.token;
});
afterAll(async () => {
  await deleteNamespaces?.();
  await harness?.close();
});

const signIn = (body: unknown) =>
  fetch(`${harness.url}/session`, {
    method: 'POST',
    headers: { origin: harness.url, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const create = (namespace: string, name: string, headers: Record<string, string>) =>
  fetch(`${harness.url}/trpc/workload.create`, {
    method: 'POST',
    headers: { origin: harness.url, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...seedRequest(name, { namespace }), lang: 'en' }),
  });

const auditLines = log.auditEntries;

/** A script's `allocations.watch` stream with its bearer token, read until the server ends it. */
function openBearerStream(bearer: string) {
  return new Promise<{ ended: Promise<string>; pings: () => number }>((resolve, reject) => {
    http
      .get(
        `${harness.url}/trpc/allocations.watch?input=%7B%7D`,
        { headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream' } },
        (response) => {
          if (response.statusCode !== 200)
            return reject(new Error(`the stream was answered ${response.statusCode}`));
          let text = '';
          response.setEncoding('utf8');
          const ended = new Promise<string>((done) => response.on('end', () => done(text)));
          response.on('data', (chunk: string) => {
            text += chunk;
            if (text.includes('event: connected')) resolve({ ended, pings });
          });
          const pings = () => text.split('event: ping').length - 1;
        },
      )
      .on('error', reject);
  });
}

describe('--auth kubernetes on the real tier', () => {
  it('refuses a token the API server does not accept, without echoing it', async () => {
    const forged = `${token.slice(0, -8)}AAAAAAAA`;
    const refused = await signIn({ token: forged });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
    const text = await refused.text();
    expect(text).toMatch(/did not accept that token/);
    expect(text).not.toContain(forged);
  });

  it('signs a browser in with a cookie the page cannot read, whoami names the operator, sign-out ends it', async () => {
    const signedIn = await signIn({ token });
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toMatchObject({ signedIn: true, mode: 'kubernetes', username });
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).not.toContain(token);
    const cookie = setCookie.split(';')[0] ?? '';

    const whoami = await fetch(`${harness.url}/trpc/session.whoami`, { headers: { cookie } });
    expect(whoami.status).toBe(200);
    const { result } = (await whoami.json()) as {
      result: { data: { username: string; groups: string[] } };
    };
    expect(result.data.username).toBe(username);
    expect(result.data.groups).toContain(`system:serviceaccounts:${ownNamespace}`);

    const signedOut = await fetch(`${harness.url}/session`, {
      method: 'DELETE',
      headers: { origin: harness.url, cookie },
    });
    expect(signedOut.status).toBe(200);
    expect(
      (await fetch(`${harness.url}/trpc/session.whoami`, { headers: { cookie } })).status,
    ).toBe(401);
  });

  it('creates in the namespace RBAC allows, with the operator identity', async () => {
    const name = uniqueName('own');
    const created = await create(ownNamespace, name, { authorization: `Bearer ${token}` });
    expect(created.status).toBe(200);
    const live = await harness.adminKubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: ownNamespace, name });
    expect(live.metadata?.namespace).toBe(ownNamespace);
  });

  it('refuses elsewhere with rule forbidden naming verb, resource and namespace; nothing is created', async () => {
    const name = uniqueName('other');
    const refused = await create(otherNamespace, name, { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as {
      error: { data: { ruleErrors: { rule: string; path: string; message: string }[] } };
    };
    const [error] = body.error.data.ruleErrors;
    expect(error).toMatchObject({ rule: 'forbidden', path: '' });
    for (const word of [username, 'create', 'deployments.apps', otherNamespace])
      expect(error?.message).toContain(word);
    const read = await harness.adminKubeConfig
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ namespace: otherNamespace, name })
      .then(
        () => 200,
        (failure: { code?: number }) => failure.code,
      );
    expect(read).toBe(404);
  });

  it('writes one audit line per mutation and sign-in, and the token in no log line', () => {
    const audits = auditLines();
    expect(audits).toContainEqual(
      expect.objectContaining({ procedure: 'session.sign-in', outcome: '401', user: null }),
    );
    expect(audits).toContainEqual(
      expect.objectContaining({ procedure: 'session.sign-in', outcome: 'ok', user: username }),
    );
    expect(audits).toContainEqual(
      expect.objectContaining({ procedure: 'session.sign-out', outcome: 'ok', user: username }),
    );
    expect(audits).toContainEqual(
      expect.objectContaining({
        procedure: 'workload.create',
        namespace: ownNamespace,
        outcome: 'ok',
        user: username,
      }),
    );
    expect(audits).toContainEqual(
      expect.objectContaining({
        procedure: 'workload.create',
        namespace: otherNamespace,
        outcome: 'forbidden',
        status: 403,
        user: username,
      }),
    );
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(line).not.toContain(token);
  });

  it('ends a bearer stream once its service account is deleted; the token then gets 401', async () => {
    const leaving = await serviceAccountOperator(harness.adminKubeConfig, ownNamespace, 'leaving');
    const bearer = leaving.token;
    const stream = await openBearerStream(bearer);
    let open = true;
    void stream.ended.then(() => {
      open = false;
    });
    // Two pings are two ticks of the transport, each past the token's one-second review: the
    // stream outlives re-reviews while the token stands.
    while (stream.pings() < 2) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(open).toBe(true);
    await leaving.delete();
    // Ended without tRPC's `return`: a client reconnects, into the 401 a new request gets.
    expect(await stream.ended).not.toContain('event: return');
    const again = await fetch(`${harness.url}/trpc/session.whoami`, {
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(again.status).toBe(401);
  });
});
