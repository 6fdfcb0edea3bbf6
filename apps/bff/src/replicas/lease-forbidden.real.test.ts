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
import { serviceAccountOperator } from '../test-support/operators.js';

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

const models = (url: string, headers: Record<string, string>) =>
  fetch(`${url}/trpc/gpu.models`, { headers });

const whoami = (url: string, headers: Record<string, string>) =>
  fetch(`${url}/trpc/session.whoami`, { headers });

const signIn = async (url: string, token: string) => {
  const answer = await fetch(`${url}/session`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  expect(answer.status).toBe(200);
  return (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
};

describe('a console that has not read who signed out', () => {
  it('answers a --token session cookie 503, not 200, while the bearer token still works', async () => {
    expect((await fetch(`${harness.url}/readyz`)).status).toBe(503);
    const cookie = await signIn(harness.url, TOKEN);
    const answer = await models(harness.url, { cookie });
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain('signed out before this console started');
    expect((await models(harness.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    // A cookie it did not sign is refused as ever, not asked to try again.
    expect((await models(harness.url, { cookie: `${cookie}x` })).status).toBe(401);
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
      expect((await whoami(perUser.url, { cookie })).status).toBe(503);
      expect((await whoami(perUser.url, { authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await account.delete();
      await perUser.close();
    }
  });
});
