/**
 * A console given a session key whose account may not use the Lease (RBAC written before
 * replicas, on upstream kube-apiserver: the embedded API server has no RBAC) would never lead,
 * and no replica would sample the pool history: it says why and samples its own instead.
 */
import { ALWAYS_LEADING } from '@mgpu/kube-client';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSeal } from '../identity/session-seal.js';
import { type BffHarness, eventually, startHarness } from '../test-support/bff-harness.js';
import { capturedLog } from '../test-support/captured-log.js';

if (!onRealTier())
  throw new Error(
    'lease-forbidden.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const log = capturedLog();
let harness: BffHarness;

beforeAll(async () => {
  harness = await startHarness({
    token: 'lease-forbidden-console-token-01',
    sessionSeal: SessionSeal.fromText('f'.repeat(48)),
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
