import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { WorkloadListEvent, WorkloadProgress } from '@mgpu/shared';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from './identity/operator.js';
import {
  type BffHarness,
  eventually,
  seedRequest,
  startHarness,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';
import {
  operatorCaller,
  type ServiceAccountOperator,
  serviceAccountOperator,
  watchAllocationsAs,
} from './test-support/operators.js';

/**
 * Filtered reads (spec §8 "Operator identity") by upstream kube-apiserver's RBAC (run by
 * tools/kube/run-real-suites.sh with vitest.real.config.ts only): service accounts with
 * RoleBindings of the test's own, tokens from the TokenRequest API. The embedded cluster allows
 * every review (filtered-reads.test.ts).
 */
if (!process.env.MGPU_TEST_KUBECONFIG)
  throw new Error(
    'filtered-reads.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

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
async function forbiddenMessage(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('FORBIDDEN');
    return (error as TRPCError).message;
  }
  throw new Error('expected FORBIDDEN');
}

describe('filtered reads by the operator’s RBAC (real tier)', () => {
  let teamA: string;
  let teamB: string;
  let alice: ServiceAccountOperator;
  let bob: ServiceAccountOperator;
  let carol: ServiceAccountOperator;
  const nodeReader = uniqueName('mgpu-node-reader');

  beforeAll(async () => {
    const admin = harness.adminKubeConfig;
    const core = admin.makeApiClient(CoreV1Api);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    teamA = uniqueName('team-a');
    teamB = uniqueName('team-b');
    for (const namespace of [teamA, teamB]) {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
      cleanups.push(async () => {
        await core.deleteNamespace({ name: namespace });
      });
    }
    // `view` has no nodes (they are cluster-scoped): the cluster-wide figures need a role of their own.
    await rbac.createClusterRole({
      body: {
        metadata: { name: nodeReader },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
      },
    });
    cleanups.push(async () => {
      await rbac.deleteClusterRole({ name: nodeReader });
    });
    // alice: edit in team-a only. bob: view everywhere and the nodes. carol: edit in team-a
    // and the nodes (sees shared cards whole, but not team-b's pods on them).
    alice = await serviceAccountOperator(admin, teamA, 'alice');
    bob = await serviceAccountOperator(admin, teamA, 'bob');
    carol = await serviceAccountOperator(admin, teamA, 'carol');
    cleanups.push(
      () => alice.delete(),
      () => bob.delete(),
      () => carol.delete(),
    );
    await alice.bind('edit', teamA);
    await bob.bind('view');
    await bob.bind(nodeReader);
    await carol.bind('edit', teamA);
    await carol.bind(nodeReader);
    for (const namespace of [teamA, teamB])
      await harness.caller.workload.create({
        request: seedRequest(uniqueName('filtered'), { namespace }),
        clientRequestId: uniqueName('c'),
        lang: 'en',
      });
    await eventually(() => {
      const namespaces = new Set(
        harness.bff.context.allocations.snapshot().map((record) => record.namespace),
      );
      return namespaces.has(teamA) && namespaces.has(teamB);
    }, 'allocation records in both teams’ namespaces');
  });

  it('each operator’s allocation stream carries only their namespaces', async () => {
    const alices = await watchAllocations(alice.operator);
    const bobs = await watchAllocations(bob.operator);
    await eventually(
      () => bobs.namespaces().has(teamA) && bobs.namespaces().has(teamB),
      'both teams on bob’s stream',
    );
    await eventually(() => alices.namespaces().has(teamA), 'team-a on alice’s stream');
    expect([...alices.namespaces()]).toEqual([teamA]);
  });

  it('lists, gets and follows workloads, pending pods and quotas only in their namespaces', async () => {
    const caller = callerFor(alice.operator);
    const listed = await caller.workload.list();
    expect(listed.some((workload) => workload.namespace === teamA)).toBe(true);
    expect(listed.every((workload) => workload.namespace === teamA)).toBe(true);
    const watching = new AbortController();
    const watch = (await callerFor(alice.operator, watching.signal).workload.watch({}))[
      Symbol.asyncIterator
    ]();
    const watched = trackedData<WorkloadListEvent>((await watch.next()).value);
    watching.abort();
    expect(watched.workloads.some((workload) => workload.namespace === teamA)).toBe(true);
    expect(watched.workloads.every((workload) => workload.namespace === teamA)).toBe(true);
    const inB = (await harness.caller.workload.list({ namespace: teamB }))[0];
    expect(inB).toBeDefined();
    const name = inB?.name ?? '';
    expect(await forbiddenMessage(caller.workload.get({ namespace: teamB, name }))).toContain(
      `list pods in namespace ${teamB}`,
    );
    await expect(
      (async () => {
        for await (const _ of await caller.workload.progress({ namespace: teamB, name })) break;
      })(),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await caller.cluster.pending()).every((pod) => pod.namespace === teamA)).toBe(true);
    expect((await caller.cluster.quotas()).every((quota) => quota.namespace === teamA)).toBe(true);
  });

  it('gives an operator who may not list nodes no node, card or pool figures', async () => {
    const caller = callerFor(alice.operator);
    for (const read of [caller.cluster.summary(), caller.cluster.nodes(), caller.cluster.history()])
      expect(await forbiddenMessage(read)).toContain('list nodes');
    expect((await callerFor(bob.operator).cluster.nodes()).length).toBeGreaterThan(0);
  });

  it('shows shared cards whole but not other namespaces’ pods on them', async () => {
    const carols = await callerFor(carol.operator).cluster.nodes();
    const all = await callerFor(bob.operator).cluster.nodes();
    const holders = carols.flatMap((node) => node.cards.flatMap((card) => card.holders));
    expect(holders.some((holder) => holder.namespace === teamA)).toBe(true);
    expect(holders.every((holder) => holder.namespace === teamA)).toBe(true);
    const used = (nodes: typeof all) =>
      nodes.flatMap((node) =>
        node.cards.map((card) => `${node.name}/${card.index}:${card.usedCompute}`),
      );
    expect(used(carols)).toEqual(used(all));
  });

  it('cuts a revoked namespace from an open stream within the cache time', async () => {
    const dave = await serviceAccountOperator(harness.adminKubeConfig, teamA, 'dave');
    cleanups.push(() => dave.delete());
    await dave.bind('view', teamA);
    const unbindB = await dave.bind('view', teamB);
    const daves = await watchAllocations(dave.operator);
    await eventually(
      () => daves.namespaces().has(teamA) && daves.namespaces().has(teamB),
      'both teams on dave’s stream',
    );
    const progress = await callerFor(dave.operator).workload.progress({
      namespace: teamB,
      name: (await harness.caller.workload.list({ namespace: teamB }))[0]?.name ?? '',
    });
    const following = progress[Symbol.asyncIterator]();
    const first = await following.next();
    expect(trackedData<WorkloadProgress>(first.value).exists).toBe(true);
    await unbindB();
    await eventually(
      () => !daves.namespaces().has(teamB) && daves.namespaces().has(teamA),
      'team-b gone from dave’s stream, team-a still there',
    );
    // The open progress stream ends with FORBIDDEN once the re-check sees the binding gone.
    await expect(
      (async () => {
        while (!(await following.next()).done);
      })(),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
