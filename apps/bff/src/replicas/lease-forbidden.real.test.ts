/**
 * A console given a session key whose account may not use the Lease (RBAC written before
 * replicas, on upstream kube-apiserver: the embedded API server has no RBAC) would never lead,
 * and no replica would sample the pool history: it says why and samples its own instead. Nor
 * may it read the Secret of sign-outs, so it never knows who signed out: a session cookie is
 * answered 503 (try again), never let in as if nobody had.
 */
import { ALWAYS_LEADING } from '@mgpu/kube-client';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSeal } from '../identity/session-seal.js';
import {
  type BffHarness,
  eventually,
  startHarness,
  uniqueName,
} from '../test-support/bff-harness.js';
import { capturedLog } from '../test-support/captured-log.js';
import { models, sessionOf } from '../test-support/console-calls.js';
import { signIn } from '../test-support/console-replicas.js';
import { serviceAccountOperator } from '../test-support/operators.js';
import { SIGN_OUTS_NOT_READ } from './revocations.js';

if (!onRealTier())
  throw new Error(
    'lease-forbidden.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const TOKEN = 'lease-forbidden-console-token-01';
const KEY = SessionSeal.fromText('f'.repeat(48));
const log = capturedLog();
let harness: BffHarness;

beforeAll(async () => {
  harness = await startHarness({
    token: TOKEN,
    sessionSeal: KEY,
    // The console user's Role for its Lease is in `default` only (tools/kube/rbac).
    consoleNamespace: 'kube-public',
    history: { intervalMs: 500 },
    logger: { level: 'info', stream: log.stream },
  });
});
afterAll(() => harness?.close());

describe('a console whose account may not use the Lease', () => {
  it('says so, leads alone and keeps sampling its own pool history', async () => {
    expect(log.lines.join('\n')).toContain('may not read Lease kube-public/mgpu-console-leader');
    expect(harness.bff.leadership).toBe(ALWAYS_LEADING);
    const history = await eventually(async () => {
      const answer = await harness.caller.cluster.history();
      return answer.samples.length >= 2 ? answer : undefined;
    }, 'two samples of its own');
    expect(history.sampledBy).toBeUndefined();
  });
});

const whoami = (url: string, headers: Record<string, string>) =>
  fetch(`${url}/trpc/session.whoami`, { headers });

/** A 503 in the sign-outs' own words, with a time to wait: never the API server's, never 401. */
async function expectSignOutsNotRead(answer: Response) {
  expect(answer.status).toBe(503);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = (await answer.json()) as { error: { message: string; reason: string } };
  expect(body.error).toMatchObject({ message: SIGN_OUTS_NOT_READ, reason: 'SIGN_OUTS_NOT_READ' });
  expect(body.error.message).not.toContain('could not check the token');
}

describe('a console that has not read who signed out', () => {
  it('answers a --token session cookie 503, not 200, while the bearer token still works', async () => {
    expect((await fetch(`${harness.url}/readyz`)).status).toBe(503);
    const cookie = await signIn(harness.url, TOKEN);
    for (let call = 0; call < 5; call++)
      await expectSignOutsNotRead(await models(harness.url, { cookie }));
    expect((await models(harness.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    // A cookie it did not sign is refused as ever, not asked to try again.
    expect((await models(harness.url, { cookie: `${cookie}x` })).status).toBe(401);
    // Said once, not at each of the five calls: the Secret stays unreadable, requests go on.
    const said = log.lines.filter((line) => line.includes('session cookies answered 503'));
    expect(said).toHaveLength(1);
  });

  it('answers GET /session 503 too, so the page waits instead of asking for a sign-in again', async () => {
    const cookie = await signIn(harness.url, TOKEN);
    await expectSignOutsNotRead(await sessionOf(harness.url, cookie));
    // No cookie at all is judged without the sign-outs: this browser has not signed in.
    const none = await fetch(`${harness.url}/session`);
    expect(none.status).toBe(200);
    expect(await none.json()).toMatchObject({ required: true, signedIn: false });
  });

  it('answers an --auth kubernetes session cookie 503 too', async () => {
    const perUser = await startHarness({
      auth: 'kubernetes',
      sessionSeal: KEY,
      consoleNamespace: 'kube-public',
      logger: false,
    });
    const account = await serviceAccountOperator(
      perUser.adminKubeConfig,
      perUser.namespace,
      uniqueName('unread-sign-outs'),
    );
    try {
      const token = account.operator.kubeConfig.getCurrentUser()?.token ?? '';
      const cookie = await signIn(perUser.url, token);
      await expectSignOutsNotRead(await whoami(perUser.url, { cookie }));
      await expectSignOutsNotRead(await sessionOf(perUser.url, cookie));
      expect((await whoami(perUser.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await account.delete();
      await perUser.close();
    }
  });
});
