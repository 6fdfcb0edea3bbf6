import { describe, expect, it } from 'vitest';
import { eventually } from './test-support/bff-harness.js';
import { operatorWithToken, startOperatorTest } from './test-support/operators.js';

/**
 * Filtered reads (spec §8 "Operator identity") on the embedded cluster: its API server has one
 * token and no RBAC, so it allows every review and an operator holding that token sees what the
 * console sees. The denials, and a revocation on an open stream, are in
 * filtered-reads.real.test.ts (upstream kube-apiserver's RBAC).
 */
const onReal = Boolean(process.env.MGPU_TEST_KUBECONFIG);

const { harness, callerFor, watchAllocations } = startOperatorTest();

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
