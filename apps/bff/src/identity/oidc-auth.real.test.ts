/**
 * `--auth oidc` end to end on the real tier (vitest.real.config.ts, under
 * tools/kube/with-real-cluster.sh, which runs the test issuer and exports MGPU_TEST_OIDC_*):
 * the browser's whole code flow driven over HTTP — the console's redirect with PKCE, the
 * issuer's login form, the callback — ends in a session whose calls reach kube-apiserver as the
 * OIDC user, and the session outlives its first ID token through the refresh grant; signing
 * out ends the issuer's session too.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BffHarness,
  seedRequest,
  startHarness,
  uniqueName,
} from '../test-support/bff-harness.js';
import { capturedLog } from '../test-support/captured-log.js';
import { SigningInBrowser } from '../test-support/issuer-sign-in.js';
import { OIDC_STATE_COOKIE } from './oidc-routes.js';
import { SESSION_COOKIE } from './session-cookie.js';

const env = process.env;
if (!onRealTier() || !env.MGPU_TEST_OIDC_ISSUER)
  throw new Error('oidc-auth.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh');

const credentials = {
  login: env.MGPU_TEST_OIDC_LOGIN ?? '',
  password: env.MGPU_TEST_OIDC_PASSWORD ?? '',
};
const username = env.MGPU_TEST_OIDC_USERNAME ?? '';
const [group = ''] = (env.MGPU_TEST_OIDC_GROUPS ?? '').split(',');
const namespace = uniqueName('oidc-team');
let harness: BffHarness;
const log = capturedLog();

beforeAll(async () => {
  harness = await startHarness({
    auth: 'oidc',
    oidc: {
      issuer: env.MGPU_TEST_OIDC_ISSUER ?? '',
      clientId: env.MGPU_TEST_OIDC_CLIENT_ID ?? '',
      clientSecret: env.MGPU_TEST_OIDC_CLIENT_SECRET ?? '',
      caFile: env.MGPU_TEST_OIDC_CA_FILE ?? '',
    },
    logger: { level: 'info', stream: log.stream },
  });
  const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  // The OIDC group may edit in this namespace only: RBAC of kube-apiserver decides the rest.
  await harness.adminKubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'oidc-operators-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
  });
});
afterAll(async () => {
  await harness?.adminKubeConfig
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name: namespace })
    .catch(() => undefined);
  await harness?.close();
});

const signInFrom = async (returnTo: string) => {
  const browser = new SigningInBrowser(readFileSync(env.MGPU_TEST_OIDC_CA_FILE ?? ''));
  const start = new URL(`/auth/login?returnTo=${encodeURIComponent(returnTo)}`, harness.url);
  const hops = await browser.signIn(start, credentials);
  const console = new URL(harness.url);
  return { browser, hops, cookie: browser.cookieHeader(console) };
};

const whoami = async (cookie: string) => {
  const response = await fetch(`${harness.url}/trpc/session.whoami`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { username: string; groups: string[] } } })
    .result.data;
};

/**
 * GETs of `paths` on connections of their own, written in one go once all are open: every
 * request reaches the console before any is answered, as a guesser's parallel requests would.
 * The status of each, in order.
 */
async function sentTogether(base: string, paths: string[], cookie: string): Promise<number[]> {
  const { host, hostname, port } = new URL(base);
  const sockets = await Promise.all(
    paths.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    (socket) =>
      new Promise<number>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
      }),
  );
  for (const [index, socket] of sockets.entries())
    socket.write(
      `GET ${paths[index]} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
    );
  return Promise.all(answers);
}

describe('--auth oidc on the real tier', () => {
  it('sends the browser to the issuer with PKCE, state and nonce, and back to the page it came from', async () => {
    const { hops, cookie } = await signInFrom('/workloads?namespace=team-a');
    const [login, ...rest] = hops;
    expect(login?.status).toBe(302);
    const authorize = new URL(login?.location ?? '');
    expect(authorize.origin).toBe(env.MGPU_TEST_OIDC_ISSUER);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toBeTruthy();
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('client_id')).toBe(env.MGPU_TEST_OIDC_CLIENT_ID);
    // The issuer's login page was shown and posted.
    expect(rest.some((hop) => hop.body.includes('name="password"'))).toBe(true);
    const callback = rest.find((hop) => hop.url.pathname === '/auth/callback');
    expect(callback?.status).toBe(302);
    expect(callback?.location).toBe('/workloads?namespace=team-a');
    expect(cookie).toContain(`${SESSION_COOKIE}=`);
    expect(cookie).not.toContain(OIDC_STATE_COOKIE);
  });

  it("gives the session the OIDC user's identity as kube-apiserver names it", async () => {
    const { cookie } = await signInFrom('/');
    const me = await whoami(cookie);
    expect(me.username).toBe(username);
    expect(me.groups).toContain(group);
    const session = await fetch(`${harness.url}/session`, { headers: { cookie } });
    expect(await session.json()).toMatchObject({ mode: 'oidc', signedIn: true, username });
  });

  it("creates where the OIDC user's RoleBinding allows, and kube-apiserver records them as the creator", async () => {
    const { cookie } = await signInFrom('/');
    const name = uniqueName('oidc-made');
    const created = await fetch(`${harness.url}/trpc/workload.create`, {
      method: 'POST',
      headers: { origin: harness.url, 'content-type': 'application/json', cookie },
      body: JSON.stringify({ ...seedRequest(name, { namespace }), lang: 'en' }),
    });
    expect(created.status).toBe(200);
    const refused = await fetch(`${harness.url}/trpc/workload.create`, {
      method: 'POST',
      headers: { origin: harness.url, 'content-type': 'application/json', cookie },
      body: JSON.stringify({ ...seedRequest(name, { namespace: harness.namespace }), lang: 'en' }),
    });
    expect(refused.status).toBe(403);
    const audit = log.auditEntries();
    expect(audit).toContainEqual(
      expect.objectContaining({
        user: username,
        procedure: 'workload.create',
        namespace,
        name,
        outcome: 'ok',
      }),
    );
  });

  it('refuses a callback the browser did not start (no state cookie) and a return to another site', async () => {
    const browser = new SigningInBrowser(readFileSync(env.MGPU_TEST_OIDC_CA_FILE ?? ''));
    const start = new URL('/auth/login?returnTo=//evil.example/x', harness.url);
    const hops = await browser.signIn(start, credentials);
    const callback = hops.find((hop) => hop.url.pathname === '/auth/callback');
    expect(callback?.location).toBe('/');

    // Someone else's callback URL, opened in a browser that never started a sign-in.
    const other = new SigningInBrowser(readFileSync(env.MGPU_TEST_OIDC_CA_FILE ?? ''));
    const first = await other.signIn(new URL('/auth/login', harness.url), credentials);
    const stolen = first.find((hop) => hop.url.pathname === '/auth/callback')?.url;
    expect(stolen).toBeDefined();
    const replayed = await fetch(stolen ?? '', { redirect: 'manual' });
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('set-cookie') ?? '').not.toContain(`${SESSION_COOKIE}=`);
    for (const line of log.lines)
      expect(line).not.toContain(stolen?.searchParams.get('code') ?? '-');
  });

  it('renews the ID token before it expires: the session keeps working with a new token', async () => {
    const { cookie } = await signInFrom('/');
    const id = decodeURIComponent(cookie.split(`${SESSION_COOKIE}=`)[1]?.split(';')[0] ?? '');
    const first = (await harness.bff.sessions?.resume(id))?.session.operator;
    expect(first?.username).toBe(username);
    // The tier's ID tokens live 65 s and the console renews in the last minute: within seconds
    // a call finds the token due and the refresh grant replaces it.
    let renewed = first;
    for (let attempt = 0; attempt < 60 && renewed === first; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await whoami(cookie)).username).toBe(username);
      renewed = (await harness.bff.sessions?.resume(id))?.session.operator;
    }
    expect(renewed).not.toBe(first);
    expect(renewed?.username).toBe(username);
    expect((await whoami(cookie)).username).toBe(username);
  });

  it("signs out at the issuer too: the browser's next sign-in asks for the password again", async () => {
    const browser = new SigningInBrowser(readFileSync(env.MGPU_TEST_OIDC_CA_FILE ?? ''));
    const login = new URL('/auth/login', harness.url);
    const askedPassword = (hops: { body: string }[]) =>
      hops.some((hop) => hop.body.includes('name="password"'));
    expect(askedPassword(await browser.signIn(login, credentials))).toBe(true);
    // While the issuer's session stands, this browser signs in again without a password.
    expect(askedPassword(await browser.signIn(login, credentials))).toBe(false);
    const cookie = browser.cookieHeader(new URL(harness.url));
    expect((await whoami(cookie)).username).toBe(username);

    const hops = await browser.signOut(new URL('/auth/logout', harness.url));
    const endSession = new URL(hops[0]?.location ?? '', harness.url);
    expect(hops[0]?.status).toBe(302);
    expect(endSession.origin).toBe(env.MGPU_TEST_OIDC_ISSUER);
    expect(endSession.searchParams.get('id_token_hint')).toBeTruthy();
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${harness.url}/`);
    // The issuer asked, was answered "Sign out", and sent the browser back to the console.
    expect(hops.some((hop) => hop.body.includes('<h1>Sign out</h1>'))).toBe(true);
    expect(hops.at(-1)?.url.href).toBe(`${harness.url}/`);
    expect(browser.cookieHeader(new URL(harness.url))).not.toContain(`${SESSION_COOKIE}=`);
    const ended = await fetch(`${harness.url}/trpc/session.whoami`, { headers: { cookie } });
    expect(ended.status).toBe(401);
    expect(log.auditEntries()).toContainEqual(
      expect.objectContaining({ procedure: 'session.sign-out', user: username, outcome: 'ok' }),
    );

    expect(askedPassword(await browser.signIn(login, credentials))).toBe(true);
    expect((await whoami(browser.cookieHeader(new URL(harness.url)))).username).toBe(username);
  });
  it('throttles refused callbacks per address, as wrong tokens at /session are', async () => {
    // A console of its own: its throttle is not the one the tests above sign in through.
    const guessed = await startHarness({
      auth: 'oidc',
      oidc: {
        issuer: env.MGPU_TEST_OIDC_ISSUER ?? '',
        clientId: env.MGPU_TEST_OIDC_CLIENT_ID ?? '',
        clientSecret: env.MGPU_TEST_OIDC_CLIENT_SECRET ?? '',
        caFile: env.MGPU_TEST_OIDC_CA_FILE ?? '',
      },
      logger: false,
    });
    try {
      const guess = (attempt: number) =>
        fetch(`${guessed.url}/auth/callback?code=guess-${attempt}&state=guess-${attempt}`, {
          redirect: 'manual',
        });
      for (let attempt = 0; attempt < 10; attempt++)
        expect((await guess(attempt)).status).toBe(401);
      const throttled = await guess(10);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      // The same window covers every other door from that address.
      const signIn = await fetch(`${guessed.url}/session`, {
        method: 'POST',
        headers: { origin: guessed.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token: 'any-token' }),
      });
      expect(signIn.status).toBe(429);
    } finally {
      await guessed.close();
    }
  });

  it('reserves each callback while the issuer is asked: 40 guesses sent at once get the limit, not 40 tries', async () => {
    const issuerLog = capturedLog();
    const guessed = await startHarness({
      auth: 'oidc',
      oidc: {
        issuer: env.MGPU_TEST_OIDC_ISSUER ?? '',
        clientId: env.MGPU_TEST_OIDC_CLIENT_ID ?? '',
        clientSecret: env.MGPU_TEST_OIDC_CLIENT_SECRET ?? '',
        caFile: env.MGPU_TEST_OIDC_CA_FILE ?? '',
      },
      logger: { level: 'info', stream: issuerLog.stream },
    });
    try {
      // One real sign-in started, so every guess carries a good state and is sent to the issuer.
      const login = await fetch(`${guessed.url}/auth/login`, { redirect: 'manual' });
      const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      // The issuer names itself in its answers (RFC 9207): without `iss` none would reach it.
      const iss = encodeURIComponent(env.MGPU_TEST_OIDC_ISSUER ?? '');
      expect(cookie).toContain(`${OIDC_STATE_COOKIE}=`);
      const statuses = await sentTogether(
        guessed.url,
        Array.from(
          { length: 40 },
          (_, attempt) => `/auth/callback?code=guess-${attempt}&state=${state}&iss=${iss}`,
        ),
        cookie,
      );
      expect(
        statuses.filter((status) => status === 429).length,
        `${statuses.join(' ')}\n${issuerLog.lines.slice(-5).join('\n')}`,
      ).toBeGreaterThanOrEqual(30);
      expect(statuses.filter((status) => status === 401).length).toBeGreaterThan(0);
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(10);
      // Each code the issuer refused is one exchange it was asked for.
      const exchanges = issuerLog.lines.filter((line) => line.includes('OIDC sign-in refused"'));
      expect(exchanges.length).toBeGreaterThan(0);
      expect(exchanges.length).toBeLessThanOrEqual(10);
    } finally {
      await guessed.close();
    }
  });
});
