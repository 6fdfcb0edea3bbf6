import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from './identity/operator.js';
import { type BffHarness, eventually, startHarness } from './test-support/bff-harness.js';
import { operatorCaller, operatorWithToken, watchAllocationsAs } from './test-support/operators.js';

/**
 * Filtered reads (spec §8 "Operator identity") on the embedded cluster: its API server has one
 * token and no RBAC, so it allows every review and an operator holding that token sees what the
 * console sees. The denials, and a revocation on an open stream, are in
 * filtered-reads.real.test.ts (upstream kube-apiserver's RBAC).
 */
const onReal = Boolean(process.env.MGPU_TEST_KUBECONFIG);

let harness: BffHarness;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  // A short cache, so a revocation shows quickly; the tests poll, they do not time it.
  harness = await startHarness({ accessReviewTtlMs: 1_000 });
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await harness?.close();
});

const callerFor = (operator: Operator, signal?: AbortSignal) =>
  operatorCaller(harness.bff.context, operator, signal);

async function watchAllocations(operator: Operator) {
  const watched = await watchAllocationsAs(harness.bff.context, operator);
  cleanups.push(() => watched.stop());
  return watched;
}

describe.runIf(!onReal)('filtered reads on the embedded cluster (one token, no RBAC)', () => {
  it('show an operator holding the cluster’s token what the console shows', async () => {
    const operator = operatorWithToken(
      harness.connection.kubeConfig,
      harness.embedded?.token ?? '',
      'embedded-operator',
    );
    const caller = callerFor(operator);
    expect((await caller.cluster.nodes()).length).toBe(
      (await harness.caller.cluster.nodes()).length,
    );
    expect((await caller.cluster.summary()).pools).toEqual(
      (await harness.caller.cluster.summary()).pools,
    );
    const watched = await watchAllocations(operator);
    const all = new Set(harness.bff.context.allocations.snapshot().map((r) => r.namespace));
    await eventually(
      () => [...all].every((ns) => watched.namespaces().has(ns)),
      'every namespace on the operator’s stream',
    );
  });
});
