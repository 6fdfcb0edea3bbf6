/**
 * Issue 25's sign-in findings, each as the attacker or careless operator met it: an empty or short
 * `--token`, bearer guesses never throttled, one throttle for everyone behind a proxy, a signed-out
 * cookie that kept working, a cross-site page driving the console, a failed start left running.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startBff } from '../server.js';
import { startBffTest, startHarness, uniqueName } from '../test-support/bff-harness.js';
import { models } from '../test-support/console-calls.js';
import { startConsoleProcess } from '../test-support/console-process.js';

const TOKEN = 'sign-in-hardening-token-0123';
const harness = startBffTest();

const signIn = (url: string, token: string) =>
  fetch(`${url}/session`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });

const cookieOf = (response: Response) =>
  (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

/** Folders of session keys and state files, removed after each test. */
const keyDirs: string[] = [];
afterEach(() => {
  for (const dir of keyDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** A new folder with a session key file in it (48 characters, as `openssl rand` would give). */
function sessionKeyDir(): { dir: string; keyFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mgpu-key-'));
  keyDirs.push(dir);
  const keyFile = join(dir, 'session.key');
  writeFileSync(keyFile, `${'k'.repeat(48)}\n`);
  return { dir, keyFile };
}

describe('the console token', () => {
  it.each([
    ['empty', ['--token=']],
    ['one character', ['--token', 'a']],
    ['15 characters', ['--token', '0123456789abcde']],
  ])(
    'refuses to start with a token that is %s: exit 2, one line naming --token',
    async (_, args) => {
      const started = startConsoleProcess(['--embedded', ...args]);
      const exit = await started.exit;
      expect(exit.code).toBe(2);
      expect(started.output()).toContain('--token');
      expect(started.output()).not.toContain('console ready');
      // One line, no stack trace.
      expect(started.output()).not.toMatch(/\n\s+at /);
    },
  );

  it('refuses an empty MGPU_CONSOLE_TOKEN too (a Secret whose key is empty)', async () => {
    const saved = process.env.MGPU_CONSOLE_TOKEN;
    process.env.MGPU_CONSOLE_TOKEN = '';
    try {
      const started = startConsoleProcess(['--embedded']);
      expect((await started.exit).code).toBe(2);
      expect(started.output()).toContain('MGPU_CONSOLE_TOKEN');
    } finally {
      if (saved === undefined) delete process.env.MGPU_CONSOLE_TOKEN;
      else process.env.MGPU_CONSOLE_TOKEN = saved;
    }
  });

  it('refuses a token with a space or a newline, which no header could carry', async () => {
    for (const token of ['0123456789abcdef\n', '0123456789 abcdefgh', '\t0123456789abcdefgh'])
      await expect(
        startBff({ connection: harness.connection, port: 0, logger: false, token }),
      ).rejects.toThrow(/newline or a control character/);
  });

  it('is refused by startBff itself, before anything listens', async () => {
    await expect(
      startBff({ connection: harness.connection, port: 0, logger: false, token: '' }),
    ).rejects.toThrow(/--token is empty/);
    await expect(
      startBff({ connection: harness.connection, port: 0, logger: false, token: 'short' }),
    ).rejects.toThrow(/at least 16/);
  });

  it('prints its usage for --help and exits 0; an unknown flag gets one line and exit 2', async () => {
    const help = startConsoleProcess(['--help']);
    expect((await help.exit).code).toBe(0);
    expect(help.output()).toContain('Usage: npm start');
    expect(help.output()).toContain('--trust-proxy');
    const unknown = startConsoleProcess(['--no-such-flag']);
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.output()).toContain("'--no-such-flag'");
    expect(unknown.output()).not.toMatch(/\n\s+at /);
  });
});

describe('wrong credentials, every way presented', () => {
  it('throttles wrong bearer tokens in --token mode, and then the right one from that address too', async () => {
    const guarded = await startHarness({ token: TOKEN });
    try {
      for (let attempt = 0; attempt < 10; attempt++)
        expect(
          (await models(guarded.url, { authorization: `Bearer guess-${attempt}` })).status,
        ).toBe(401);
      const throttled = await models(guarded.url, { authorization: 'Bearer guess-again' });
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await models(guarded.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(429);
      // The sign-in page counts against the same window.
      expect((await signIn(guarded.url, TOKEN)).status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('counts bearer guesses at GET /session too, which would otherwise test tokens freely', async () => {
    const guarded = await startHarness({ token: TOKEN });
    try {
      const whoAmI = (token: string) =>
        fetch(`${guarded.url}/session`, { headers: { authorization: `Bearer ${token}` } });
      for (let attempt = 0; attempt < 10; attempt++) {
        const answer = await whoAmI(`guess-${attempt}`);
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { signedIn: boolean }).signedIn).toBe(false);
      }
      expect((await whoAmI(TOKEN)).status).toBe(429);
      expect((await models(guarded.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('gives guesses sent all at once no more tries than the limit (--auth)', async () => {
    // Each bearer token is reviewed by the API server: the reviews in flight count too.
    const reviewed = await startHarness({ auth: 'kubernetes', signInAttemptsPerMinute: 5 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, attempt) =>
          models(reviewed.url, { authorization: `Bearer wrong-token-${attempt}` }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(35);
      expect(statuses.every((status) => status === 429 || status === 401 || status === 503)).toBe(
        true,
      );
    } finally {
      await reviewed.close();
    }
  });

  it('accepts the scheme in lower case, as kube-apiserver does', async () => {
    const guarded = await startHarness({ token: TOKEN });
    try {
      expect((await models(guarded.url, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('counts each client behind a trusted proxy on its own, and believes no one else', async () => {
    const forwardedFor = (address: string, token: string) =>
      models(behind.url, { authorization: `Bearer ${token}`, 'x-forwarded-for': address });
    // The test is the proxy: one hop on loopback.
    const behind = await startHarness({ token: TOKEN, trustProxy: 1 });
    const direct = await startHarness({ token: TOKEN });
    try {
      for (let attempt = 0; attempt < 10; attempt++)
        expect((await forwardedFor('203.0.113.7', 'guess')).status).toBe(401);
      expect((await forwardedFor('203.0.113.7', TOKEN)).status).toBe(429);
      // Another operator behind the same proxy is not locked out.
      expect((await forwardedFor('198.51.100.9', TOKEN)).status).toBe(200);

      // Without --trust-proxy a client cannot pick its own address to dodge the throttle.
      for (let attempt = 0; attempt < 10; attempt++)
        await models(direct.url, {
          authorization: 'Bearer guess',
          'x-forwarded-for': `192.0.2.${attempt}`,
        });
      const dodged = await models(direct.url, {
        authorization: `Bearer ${TOKEN}`,
        'x-forwarded-for': '192.0.2.200',
      });
      expect(dodged.status).toBe(429);
    } finally {
      await behind.close();
      await direct.close();
    }
  });

  it('makes the cookie Secure on X-Forwarded-Proto: https only from a trusted proxy', async () => {
    const behind = await startHarness({ token: TOKEN, trustProxy: 1 });
    const direct = await startHarness({ token: TOKEN });
    const signInOver = (url: string) =>
      fetch(`${url}/session`, {
        method: 'POST',
        headers: {
          origin: url,
          'content-type': 'application/json',
          'x-forwarded-proto': 'https',
        },
        body: JSON.stringify({ token: TOKEN }),
      });
    try {
      expect((await signInOver(behind.url)).headers.get('set-cookie')).toMatch(/; Secure/i);
      expect((await signInOver(direct.url)).headers.get('set-cookie')).not.toMatch(/; Secure/i);
    } finally {
      await behind.close();
      await direct.close();
    }
  });
});

describe('signing out of a --token session', () => {
  it('refuses every copy of the cookie afterwards and ends its open streams', async () => {
    const guarded = await startHarness({ token: TOKEN });
    try {
      const cookie = cookieOf(await signIn(guarded.url, TOKEN));
      expect((await models(guarded.url, { cookie })).status).toBe(200);
      const stream = await fetch(
        `${guarded.url}/trpc/allocations.watch?input=${encodeURIComponent('{}')}`,
        { headers: { cookie, accept: 'text/event-stream' } },
      );
      expect(stream.status).toBe(200);
      const reader = stream.body?.getReader();
      expect(reader).toBeDefined();
      await reader?.read();

      const out = await fetch(`${guarded.url}/session`, {
        method: 'DELETE',
        headers: { origin: guarded.url, cookie },
      });
      expect(out.status).toBe(200);
      // A copy of the cookie kept by anyone is refused from now on, dressed up or not.
      expect((await models(guarded.url, { cookie })).status).toBe(401);
      expect((await models(guarded.url, { cookie: `${cookie}.x` })).status).toBe(401);
      expect((await models(guarded.url, { cookie: `${cookie}.` })).status).toBe(401);
      // The stream it opened ends: read until the server closes it.
      let ended = false;
      for (let chunk = 0; chunk < 1000 && !ended; chunk++)
        ended = (await reader?.read())?.done ?? true;
      expect(ended).toBe(true);
      // Other sessions go on.
      const other = cookieOf(await signIn(guarded.url, TOKEN));
      expect((await models(guarded.url, { cookie: other })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('does not let a cookie of an earlier process in', async () => {
    const first = await startHarness({ token: TOKEN });
    let cookie: string;
    try {
      cookie = cookieOf(await signIn(first.url, TOKEN));
      expect((await models(first.url, { cookie })).status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await startHarness({ token: TOKEN });
    try {
      expect((await models(second.url, { cookie })).status).toBe(401);
    } finally {
      await second.close();
    }
  });

  it('refuses to start with a session key on an embedded cluster that keeps no state: exit 2, naming --state-file', async () => {
    const { keyFile } = sessionKeyDir();
    const started = startConsoleProcess([
      '--embedded',
      '--token',
      TOKEN,
      '--session-key-file',
      keyFile,
    ]);
    expect((await started.exit).code).toBe(2);
    expect(started.output()).toContain('--session-key-file');
    expect(started.output()).toContain('--state-file');
    // Refused from the flags alone: no embedded cluster was started first.
    expect(started.output()).not.toContain('embedded mGPU cluster');
    expect(started.output()).not.toContain('console ready');
    expect(started.output()).not.toMatch(/\n\s+at /);
  });

  it('starts with a session key on an embedded cluster without sign-in: no sessions, no sign-outs to keep', async () => {
    const { keyFile } = sessionKeyDir();
    const started = startConsoleProcess(['--embedded', '--session-key-file', keyFile]);
    try {
      const url = await started.url;
      expect((await models(url)).status).toBe(200);
      expect(started.output()).not.toContain('--state-file');
    } finally {
      started.signal('SIGTERM');
      await started.exit;
    }
  });

  it('keeps a sign-out across a restart with the same session key and state file', async () => {
    const { dir, keyFile } = sessionKeyDir();
    const args = [
      '--embedded',
      '--state-file',
      join(dir, 'state.json'),
      '--token',
      TOKEN,
      '--session-key-file',
      keyFile,
    ];
    const first = startConsoleProcess(args);
    let signedOut: string;
    let kept: string;
    try {
      const url = await first.url;
      signedOut = cookieOf(await signIn(url, TOKEN));
      kept = cookieOf(await signIn(url, TOKEN));
      const out = await fetch(`${url}/session`, {
        method: 'DELETE',
        headers: { origin: url, cookie: signedOut },
      });
      expect(out.status).toBe(200);
      expect((await models(url, { cookie: signedOut })).status).toBe(401);
    } finally {
      first.signal('SIGTERM');
      await first.exit;
    }
    const second = startConsoleProcess(args);
    try {
      const url = await second.url;
      expect((await models(url, { cookie: signedOut })).status).toBe(401);
      // The key did carry over: the session that was not signed out goes on.
      expect((await models(url, { cookie: kept })).status).toBe(200);
    } finally {
      second.signal('SIGTERM');
      await second.exit;
    }
  });
});

describe('pages of other sites', () => {
  it('may not make a visitor’s browser call /trpc (Sec-Fetch-Site: cross-site)', async () => {
    const crossSite = await models(harness.url, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.text()).toContain('cross-site');
    expect((await models(harness.url, { 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // Scripts send no such header and are let in as before.
    expect((await models(harness.url)).status).toBe(200);
  });
});

/** A TCP relay to the cluster's API that counts the bytes the API sends back through it. */
async function countingRelay(
  target: URL,
): Promise<{ port: number; received(): number; close(): void }> {
  let received = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    upstream.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    received: () => received,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('a start that fails', () => {
  it('stops what it started: no watch of the cluster goes on after a port already in use', async () => {
    const server = new URL(harness.connection.kubeConfig.getCurrentCluster()?.server ?? '');
    const relay = await countingRelay(server);
    const occupied = net.createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
    const busyPort = (occupied.address() as net.AddressInfo).port;
    const relayed = new KubeConfig();
    relayed.loadFromString(harness.connection.kubeConfig.exportConfig());
    const current = relayed.getCurrentCluster();
    relayed.clusters = relayed.clusters.map((cluster) =>
      cluster.name === current?.name
        ? { ...cluster, server: `${server.protocol}//127.0.0.1:${relay.port}` }
        : cluster,
    );
    const pod = uniqueName('after-failed-start');
    const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
    try {
      await expect(
        startBff({
          connection: { ...harness.connection, kubeConfig: relayed },
          port: busyPort,
          logger: false,
        }),
      ).rejects.toThrow(/EADDRINUSE/);
      const before = relay.received();
      // Informers left running would hear of this pod through their watch.
      await core.createNamespacedPod({
        namespace: harness.namespace,
        body: {
          metadata: { name: pod },
          spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(relay.received()).toBe(before);
    } finally {
      await core.deleteNamespacedPod({ name: pod, namespace: harness.namespace }).catch(() => {});
      occupied.close();
      relay.close();
    }
  });
});
