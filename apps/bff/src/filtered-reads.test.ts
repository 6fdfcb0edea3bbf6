import { onRealTier } from '@mgpu/shared/test-tier';
import { describe, expect, it } from 'vitest';
import { eventually, seedRequest, uniqueName } from './test-support/bff-harness.js';
import { operatorWithToken, startOperatorTest } from './test-support/operators.js';

/**
 * Filtered reads (spec §8 "Operator identity") on the embedded cluster: its API server has one
 * token and no RBAC, so it allows every review and an operator holding that token sees what the
 * console sees. The denials, and a revocation on an open stream, are in
 * filtered-reads.real.test.ts (upstream kube-apiserver's RBAC).
 */
const { harness, callerFor, watchAllocations } = startOperatorTest();

describe.skipIf(onRealTier())('filtered reads on the embedded cluster (one token, no RBAC)', () => {
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

  it('builds node states once for all operators: a new operator’s first preview builds none', async () => {
    const { views, cluster } = harness.bff.context;
    const request = seedRequest(uniqueName('shared-views'));
    // A quiet moment (the informers unchanged across the previews); retried if the cluster moved.
    await eventually(
      async () => {
        views.nodeStates();
        const before = {
          builds: views.builds,
          nodes: cluster.nodes.version,
          pods: cluster.pods.version,
        };
        for (let index = 0; index < 3; index++) {
          // Each a new sign-in: a new operator with a cluster client of its own.
          const operator = operatorWithToken(
            harness.connection.kubeConfig,
            harness.embedded?.token ?? '',
            uniqueName('operator'),
          );
          const preview = await callerFor(operator).workload.preview({ request, lang: 'en' });
          expect(preview.valid).toBe(true);
        }
        if (cluster.nodes.version !== before.nodes || cluster.pods.version !== before.pods)
          return undefined;
        expect(views.builds).toBe(before.builds);
        return true;
      },
      'three operators’ first previews on unchanged informers',
      50,
    );
  });
});
