/**
 * Issue 30: two consoles over one cluster with one `--session-key-file` key (in this process,
 * each with its own server, informers and memory, as two replicas have): a sign-in on one works
 * on the other and on a restarted one, and a sign-out on either is refused by both within 5 s —
 * on both tiers, the sign-outs kept in the cluster as the least-privileged console may.
 */
import http from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSeal } from '../identity/session-seal.js';
import { type BffOptions, type RunningBff, startBff } from '../server.js';
import { type BffHarness, eventually, startHarness } from '../test-support/bff-harness.js';
import { revocationKey } from './revocations.js';

const TOKEN = 'replica-console-token-0123456789';
const KEY = 'k4Jx9vR2mQ8sT1wZ6yB3nC7dF5gH0jL2pN8qS4uV';
const shared = () => SessionSeal.fromText(KEY);
/** The contract: a sign-out is refused by every replica within this long. */
const SIGN_OUT_REACH_MS = 5000;

let first: BffHarness;
const others: RunningBff[] = [];
/** Another console over the same cluster: the same flags, its own memory. */
async function replica(options: Partial<BffOptions>) {
  const bff = await startBff({
    connection: first.connection,
    port: 0,
    logger: false,
    ...options,
  });
  others.push(bff);
  return bff;
}

beforeAll(async () => {
  first = await startHarness({ token: TOKEN, sessionSeal: shared() });
});
afterAll(async () => {
  for (const bff of others) await bff.close();
  await first?.close();
});

const call = (url: string, cookie: string) =>
  fetch(`${url}/trpc/gpu.models`, { headers: { cookie } }).then((answer) => answer.status);

async function signIn(url: string): Promise<string> {
  const answer = await fetch(`${url}/session`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ token: TOKEN }),
  });
  expect(answer.status).toBe(200);
  return (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

async function signOut(url: string, cookie: string): Promise<void> {
  const answer = await fetch(`${url}/session`, {
    method: 'DELETE',
    headers: { origin: url, cookie },
  });
  expect(answer.status).toBe(200);
}

/** Polls until both refuse the cookie; fails past the contract's 5 s. */
async function refusedByAll(urls: string[], cookie: string): Promise<void> {
  const deadline = Date.now() + SIGN_OUT_REACH_MS;
  for (;;) {
    const statuses = await Promise.all(urls.map((url) => call(url, cookie)));
    if (statuses.every((status) => status === 401)) return;
    if (Date.now() > deadline)
      throw new Error(`still accepted ${SIGN_OUT_REACH_MS} ms after the sign-out: ${statuses}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('two consoles with one session key (--token)', () => {
  it('accept each other’s sign-ins, and a restarted console still does', async () => {
    const second = await replica({ token: TOKEN, sessionSeal: shared() });
    const cookie = await signIn(first.url);
    expect(await call(second.url, cookie)).toBe(200);
    await second.close();
    const restarted = await replica({ token: TOKEN, sessionSeal: shared() });
    expect(await call(restarted.url, cookie)).toBe(200);
    // A console with another key is another console: its sessions are not these.
    const stranger = await replica({ token: TOKEN, sessionSeal: SessionSeal.ephemeral() });
    expect(await call(stranger.url, cookie)).toBe(401);
  });

  it('refuse a signed-out session on both within 5 s, and keep the others', async () => {
    const second = await replica({ token: TOKEN, sessionSeal: shared() });
    const leaving = await signIn(first.url);
    const staying = await signIn(second.url);
    await signOut(second.url, leaving);
    await refusedByAll([first.url, second.url], leaving);
    expect(await call(first.url, staying)).toBe(200);
    expect(await call(second.url, staying)).toBe(200);
    // What the cluster keeps names no session: only digests.
    const secret = await first.connection.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ name: 'mgpu-console-revoked-sessions', namespace: 'default' });
    const list = Buffer.from(secret.data?.revoked ?? '', 'base64').toString('utf8');
    const nonce = decodeURIComponent(leaving.split('=')[1] ?? '').split('.')[1] ?? '';
    expect(nonce).not.toBe('');
    expect(list).not.toContain(nonce);
    expect(list).toContain(revocationKey(nonce));
    // A console started after the sign-out refuses it from its first request.
    const later = await replica({ token: TOKEN, sessionSeal: shared() });
    expect(await call(later.url, leaving)).toBe(401);
  });
});

describe('two consoles with one session key (--auth)', () => {
  let a: RunningBff;
  let b: RunningBff;
  beforeAll(async () => {
    a = await replica({ auth: 'kubernetes', sessionSeal: shared() });
    b = await replica({ auth: 'kubernetes', sessionSeal: shared() });
  });

  /** A session as sign-in makes it (the embedded cluster reviews no tokens): the console's own. */
  async function sessionOn(bff: RunningBff): Promise<string> {
    const token = first.connection.kubeConfig.getCurrentUser()?.token ?? '';
    const { cookie } = (await bff.sessions?.create({ token, username: 'alice', groups: [] })) ?? {};
    if (cookie === undefined) throw new Error('started without --auth');
    return `mgpu_console_session=${cookie}`;
  }

  const whoami = async (url: string, cookie: string) => {
    const answer = await fetch(`${url}/trpc/session.whoami`, { headers: { cookie } });
    return answer.status === 200
      ? ((await answer.json()) as { result: { data: { username: string } } }).result.data.username
      : answer.status;
  };

  it('carry the operator’s identity to the other console, sealed in the cookie', async () => {
    const cookie = await sessionOn(a);
    expect(await whoami(b.url, cookie)).toBe('alice');
    const token = first.connection.kubeConfig.getCurrentUser()?.token ?? 'no-token';
    expect(decodeURIComponent(cookie)).not.toContain(token.slice(-12));
  });

  it('end the session’s open stream on the other console when it signs out', async () => {
    const cookie = await sessionOn(a);
    const ended = new Promise<void>((resolve, reject) => {
      http
        .get(`${b.url}/trpc/allocations.watch?input=%7B%7D`, { headers: { cookie } }, (answer) => {
          expect(answer.statusCode).toBe(200);
          answer.on('data', () => {});
          answer.on('end', resolve);
        })
        .on('error', reject);
    });
    await eventually(async () => (await whoami(b.url, cookie)) === 'alice', 'b knows alice');
    await signOut(a.url, cookie);
    await refusedByAll([a.url, b.url], cookie);
    await ended;
  });

  it('refuse every one of many sign-outs made at once on one console', async () => {
    const cookies = await Promise.all(Array.from({ length: 12 }, () => sessionOn(a)));
    await Promise.all(cookies.map((cookie) => signOut(a.url, cookie)));
    for (const cookie of cookies) await refusedByAll([a.url, b.url], cookie);
  });
});

describe('two consoles with one session key, an operator busy on one of them', () => {
  // Two seconds of idleness end a session: the other console must see the use, not the idle.
  let a: RunningBff;
  let b: RunningBff;
  beforeAll(async () => {
    const limits = { sessionLimits: { idleSeconds: 2 } };
    a = await replica({ auth: 'kubernetes', sessionSeal: shared(), ...limits });
    b = await replica({ auth: 'kubernetes', sessionSeal: shared(), ...limits });
  });

  it('counts the use on one console when the next request lands on the other', async () => {
    const token = first.connection.kubeConfig.getCurrentUser()?.token ?? '';
    const created = await a.sessions?.create({ token, username: 'alice', groups: [] });
    let cookie = `mgpu_console_session=${created?.cookie}`;
    const use = async (url: string) => {
      const answer = await fetch(`${url}/trpc/session.whoami`, { headers: { cookie } });
      // The browser keeps the cookie the console seals again with the last use.
      const renewed = answer.headers
        .getSetCookie()
        .find((line) => line.startsWith('mgpu_console_session='));
      if (renewed) cookie = renewed.split(';')[0] ?? cookie;
      return answer.status;
    };
    expect(await use(b.url)).toBe(200);
    // Three seconds of use on a alone: b last saw it longer ago than its idle limit.
    for (let step = 0; step < 10; step++) {
      expect(await use(a.url)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(await use(b.url)).toBe(200);
  });
});
