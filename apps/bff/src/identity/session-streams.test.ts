/**
 * An open stream ends with the session it was opened on (sign-out, idle expiry): new requests
 * of an ended session get 401, and its streams must not keep flowing. On either cluster: the
 * session is made in the store directly with the console's own token (sign-in itself needs an
 * API server that reviews tokens, operator-auth.real.test.ts), so what is tested is the ending.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffHarness, startHarness } from '../test-support/bff-harness.js';
import type { SessionLimits } from './sessions.js';

/** An `allocations.watch` stream as a browser opens it, read until the server ends it. */
function openStream(harness: BffHarness, cookie: string) {
  return new Promise<{ status: number; ended: Promise<string>; isOpen: () => boolean }>(
    (resolve, reject) => {
      http
        .get(
          `${harness.url}/trpc/allocations.watch?input=%7B%7D`,
          { headers: { cookie, accept: 'text/event-stream' } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            const connected = new Promise<void>((opened) => {
              response.on('data', (chunk: string) => {
                text += chunk;
                if (text.includes('event: connected')) opened();
              });
            });
            let open = true;
            const ended = new Promise<string>((done) =>
              response.on('end', () => {
                open = false;
                done(text);
              }),
            );
            void connected.then(() =>
              resolve({ status: response.statusCode ?? 0, ended, isOpen: () => open }),
            );
          },
        )
        .on('error', reject);
    },
  );
}

async function sessionOn(harness: BffHarness): Promise<{ value: string; cookie: string }> {
  const sessions = harness.bff.sessions;
  if (!sessions) throw new Error('the harness runs without --auth');
  const token = harness.connection.kubeConfig.getCurrentUser()?.token ?? '';
  const { cookie } = await sessions.create({ token, username: 'alice', groups: ['team-a'] });
  return { value: cookie, cookie: `mgpu_console_session=${cookie}` };
}

function withHarness(limits: Partial<SessionLimits>) {
  let harness: BffHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness({ auth: 'kubernetes', sessionLimits: limits });
  });
  afterAll(async () => {
    await harness?.close();
  });
  return () => {
    if (!harness) throw new Error('no harness');
    return harness;
  };
}

describe('a session that signs out', () => {
  const harness = withHarness({});

  it('ends its open stream; the reconnect gets 401', async () => {
    const { cookie } = await sessionOn(harness());
    const stream = await openStream(harness(), cookie);
    expect(stream.status).toBe(200);
    const signedOut = await fetch(`${harness().url}/session`, {
      method: 'DELETE',
      headers: { origin: harness().url, cookie },
    });
    expect(signedOut.status).toBe(200);
    // Ended without tRPC's `return`: the client reconnects rather than stopping.
    expect(await stream.ended).not.toContain('event: return');
    const again = await fetch(`${harness().url}/trpc/allocations.watch?input=%7B%7D`, {
      headers: { cookie },
    });
    expect(again.status).toBe(401);
  });

  it("leaves other sessions' streams flowing", async () => {
    const staying = await sessionOn(harness());
    const leaving = await sessionOn(harness());
    const open = await openStream(harness(), staying.cookie);
    await harness().bff.sessions?.end(leaving.value);
    const stillThere = await fetch(`${harness().url}/trpc/session.whoami`, {
      headers: { cookie: staying.cookie },
    });
    expect(stillThere.status).toBe(200);
    expect(open.isOpen()).toBe(true);
    await harness().bff.sessions?.end(staying.value);
    await open.ended;
  });
});

describe('a session that idles out while its stream is open', () => {
  // A second of idleness ends it: the open stream does not count as use.
  const harness = withHarness({ idleSeconds: 1 });

  it('ends the stream by itself; the reconnect gets 401', async () => {
    const { cookie } = await sessionOn(harness());
    const stream = await openStream(harness(), cookie);
    expect(stream.status).toBe(200);
    expect(await stream.ended).not.toContain('event: return');
    const again = await fetch(`${harness().url}/trpc/allocations.watch?input=%7B%7D`, {
      headers: { cookie },
    });
    expect(again.status).toBe(401);
  });
});
