import type { Operator } from '@mgpu/api';
import type {
  PendingGroupEvent,
  PendingPod,
  WorkloadListEvent,
  WorkloadProgress,
} from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  PENDING_GPU,
  seedRequest,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';
import {
  type ServiceAccountOperator,
  serviceAccountOperator,
  startOperatorTest,
} from './test-support/operators.js';

/**
 * Filtered reads (spec §8 "Operator identity") by upstream kube-apiserver's RBAC (run by
 * tools/kube/run-real-suites.sh with vitest.real.config.ts only): service accounts with
 * RoleBindings of the test's own, tokens from the TokenRequest API. The embedded cluster allows
 * every review (filtered-reads.test.ts).
 */
if (!onRealTier())
  throw new Error(
    'filtered-reads.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const { harness, cleanups, callerFor, watchAllocations, twoTeams } = startOperatorTest();

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

  beforeAll(async () => {
    const admin = harness.adminKubeConfig;
    const teams = await twoTeams('team');
    ({ teamA, teamB } = teams);
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
    await bob.bind(teams.nodeReader);
    await carol.bind('edit', teamA);
    await carol.bind(teams.nodeReader);
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

  it('offers each operator the namespaces they may list pods in, and no other', async () => {
    // alice may not list namespaces cluster-wide: she is offered those the console knows of
    // where she may list pods. bob (view everywhere) lists them all, empty ones too.
    const alices = await callerFor(alice.operator).cluster.namespaces();
    expect(alices).toContain(teamA);
    expect(alices).not.toContain(teamB);
    expect(alices).not.toContain('default');
    const bobs = await callerFor(bob.operator).cluster.namespaces();
    expect(bobs).toEqual(expect.arrayContaining([teamA, teamB, 'default', 'kube-public']));
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
    for (const read of [
      caller.cluster.summary(),
      caller.cluster.nodes(),
      caller.cluster.layout(),
      caller.cluster.history(),
    ])
      expect(await forbiddenMessage(read)).toContain('list nodes');
    expect((await callerFor(bob.operator).cluster.nodes()).length).toBeGreaterThan(0);
  });

  it('gives an operator without list nodes the form’s models and a preview without node detail; their create still works', async () => {
    const caller = callerFor(alice.operator);
    const nodeNames = (await callerFor(bob.operator).cluster.nodes()).map((node) => node.name);
    const models = await caller.gpu.models();
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      expect(model.cardsPerNode).toBeGreaterThan(0);
      for (const figure of ['nodes', 'freeComputePercent', 'freeMemoryMiB', 'idleCards'])
        expect(model).not.toHaveProperty(figure);
    }
    expect((await callerFor(carol.operator).gpu.models())[0]?.nodes).toBeGreaterThan(0);

    const request = seedRequest(uniqueName('alice-made'), { namespace: teamA });
    const preview = await caller.workload.preview({ request, lang: 'en' });
    expect(preview.valid).toBe(true);
    expect(preview.placement.nodesWithheld).toBe(true);
    expect(preview.placement.replicas.map((replica) => replica.ok)).toEqual([true]);
    for (const replica of preview.placement.replicas) {
      for (const detail of ['node', 'cards', 'fitting']) expect(replica).not.toHaveProperty(detail);
      for (const rejection of replica.rejections) expect(rejection).not.toHaveProperty('nodes');
    }
    const text = JSON.stringify(preview.placement);
    for (const node of nodeNames) expect(text).not.toContain(`"${node}"`);
    // What the preview said fits is created, with alice's own identity.
    const created = await caller.workload.create({
      request,
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    expect(created).toMatchObject({ namespace: teamA, created: true });

    // carol may list nodes: the same preview names the node and its cards.
    const full = await callerFor(carol.operator).workload.preview({
      request: seedRequest(uniqueName('carol-asks'), { namespace: teamA }),
      lang: 'en',
    });
    const [placed] = full.placement.replicas;
    expect(full.placement.nodesWithheld).toBeUndefined();
    if (!placed?.ok) throw new Error('expected the seed example to fit');
    expect(nodeNames).toContain(placed.node);
    expect(placed.cards?.worker).toHaveLength(2);
    expect(placed.fitting).toBeGreaterThan(0);
  });

  it('shows pending pods’ reasons per node group, and nodes and pool figures only with list nodes', async () => {
    const name = uniqueName('nofit');
    await harness.caller.workload.create({
      request: seedRequest(name, { namespace: teamA }, PENDING_GPU),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    cleanups.push(async () => {
      await harness.caller.workload.delete({ namespace: teamA, name });
    });
    const pendingAs = (operator: Operator) =>
      eventually(async () => {
        const pod = (await callerFor(operator).cluster.pending()).find((p) => p.workload === name);
        return pod && pod.rejections.length > 0 ? pod : undefined;
      }, `${name} pending with reasons`);
    const alices = await pendingAs(alice.operator);
    const carols = await pendingAs(carol.operator);
    expect(alices.nodesWithheld).toBe(true);
    expect(alices).not.toHaveProperty('fitsNow');
    expect(alices).not.toHaveProperty('largestFits');
    for (const rejection of alices.rejections) expect(rejection).not.toHaveProperty('nodes');
    expect(alices.message).toMatch(/^No node is available: /);
    expect(carols.largestFits?.length).toBeGreaterThan(0);
    expect(carols.rejections.every((rejection) => (rejection.nodes?.length ?? 0) > 0)).toBe(true);
    const verdicts = (pod: PendingPod) =>
      pod.rejections.map(({ group, code }) => `${group} ${code}`);
    expect(verdicts(alices)).toEqual(verdicts(carols));
    // The dashboard's stream carries the same cut.
    const watching = new AbortController();
    const watch = (await callerFor(alice.operator, watching.signal).cluster.pendingWatch({}))[
      Symbol.asyncIterator
    ]();
    const snapshot = trackedData<PendingGroupEvent>((await watch.next()).value);
    watching.abort();
    expect(snapshot.type).toBe('snapshot');
    const streamed = snapshot.groups.find((group) => group.workload === name);
    expect(streamed?.nodesWithheld).toBe(true);
    expect(verdicts({ ...alices, rejections: streamed?.rejections ?? [] })).toEqual(
      verdicts(alices),
    );
    expect(JSON.stringify(snapshot)).not.toContain('"largestFits"');
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
