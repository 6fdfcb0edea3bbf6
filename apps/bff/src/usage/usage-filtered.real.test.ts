import { onRealTier } from '@mgpu/shared/test-tier';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ServiceAccountOperator,
  serviceAccountOperator,
  startOperatorTest,
} from '../test-support/operators.js';

/**
 * Usage under per-user auth (issue 28: "a team sees its own namespaces' usage"), by upstream
 * kube-apiserver's RBAC (vitest.real.config.ts only): the rows of `usage.workloads` and
 * `usage.namespaces` are those of the namespaces the operator may list pods in; `usage.cards`
 * shows on a card only their own instances, and without `list nodes` only the cards holding
 * them, the cards' own figures withheld. The real tier has no GPU exporter, so the figures are
 * null (`unavailable`): what is cut is which rows exist (the figures' withholding is tested in
 * shared's card-figures.test.ts, with figures).
 */
if (!onRealTier())
  throw new Error(
    'usage-filtered.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const { harness, cleanups, callerFor, twoTeams } = startOperatorTest();

describe('usage cut to the operator’s namespaces (real tier)', () => {
  let teamA: string;
  let teamB: string;
  let alice: ServiceAccountOperator;
  let carol: ServiceAccountOperator;

  beforeAll(async () => {
    const admin = harness.adminKubeConfig;
    const teams = await twoTeams('usage');
    ({ teamA, teamB } = teams);
    // alice: edit in team-a only. carol: the same and the nodes (sees cards, not team-b's pods).
    alice = await serviceAccountOperator(admin, teamA, 'alice');
    carol = await serviceAccountOperator(admin, teamA, 'carol');
    cleanups.push(
      () => alice.delete(),
      () => carol.delete(),
    );
    await alice.bind('edit', teamA);
    await carol.bind('edit', teamA);
    await carol.bind(teams.nodeReader);
  });

  it('lists only the operator’s namespaces’ workloads and teams', async () => {
    const all = await harness.caller.usage.workloads({});
    expect(all.some((row) => row.namespace === teamB)).toBe(true);
    const caller = callerFor(alice.operator);
    const rows = await caller.usage.workloads({});
    expect(rows.some((row) => row.namespace === teamA)).toBe(true);
    expect(rows.every((row) => row.namespace === teamA)).toBe(true);
    // No exporter on this tier: unknown, never 0.
    expect(rows.every((row) => row.efficiency === null && row.source === 'unavailable')).toBe(true);
    expect(await caller.usage.workloads({ namespace: teamB })).toEqual([]);
    const teams = await caller.usage.namespaces({});
    expect(teams.map((team) => team.namespace)).toEqual([teamA]);
    expect(teams[0]).toMatchObject({ workloads: 1, efficiency: null });
  });

  it('shows every card to who may list nodes; to who may not, only their own instances’ cards, the cards’ own figures withheld', async () => {
    const everyone = await harness.caller.usage.cards({});
    const ids = (cards: typeof everyone.cards) =>
      cards.flatMap((card) => card.instances.map((instance) => instance.id));
    expect(ids(everyone.cards).some((id) => id.startsWith(`${teamB}/`))).toBe(true);
    const carols = await callerFor(carol.operator).usage.cards({});
    expect(carols.cards.length).toBe(everyone.cards.length);
    expect(ids(carols.cards).some((id) => id.startsWith(`${teamA}/`))).toBe(true);
    expect(ids(carols.cards).every((id) => id.startsWith(`${teamA}/`))).toBe(true);
    expect(carols.cards.every((card) => card.withheld === null)).toBe(true);

    // alice may not list nodes (the usual team): answered, not refused — her own instances on
    // the cards that hold them, nothing of team-b's, each card's own figures null with why.
    const alices = await callerFor(alice.operator).usage.cards({});
    const own = harness.bff.context.allocations
      .snapshot()
      .filter((record) => record.namespace === teamA);
    expect(ids(alices.cards).sort()).toEqual(own.map((record) => record.id).sort());
    expect(alices.cards.map((card) => `${card.node}/${card.card}`).sort()).toEqual(
      [...new Set(own.map((record) => `${record.node}/${record.card}`))].sort(),
    );
    for (const card of alices.cards)
      expect(card).toMatchObject({
        withheld: 'needs-list-nodes',
        uuid: null,
        model: null,
        used: { computePercent: null, memoryMiB: null },
        memoryFreeMiB: null,
      });
    expect(JSON.stringify(alices)).not.toContain(teamB);
  });

  it('answers for the nodes named, in one call, and only those', async () => {
    const everyone = await harness.caller.usage.cards({});
    const nodes = [...new Set(everyone.cards.map((card) => card.node))].sort();
    const [first] = nodes;
    if (first === undefined) throw new Error('no card in the cluster');
    const one = await harness.caller.usage.cards({ nodes: [first] });
    expect(one.cards.length).toBeGreaterThan(0);
    expect(one.cards.every((card) => card.node === first)).toBe(true);
    const both = await harness.caller.usage.cards({ nodes });
    expect(both.cards.length).toBe(everyone.cards.length);
    expect((await harness.caller.usage.cards({ nodes: [] })).cards).toEqual([]);
  });
});
