/**
 * `usage.cards` for the nodes a page shows, in one call (review W7), and `cluster.history`'s
 * word on where its used compute comes from (review S8/W4), on the console's own cluster:
 * the embedded one's exporter is read in-process and labelled simulated; the real tier has no
 * GPU exporter, so there the source is `unavailable`.
 */
import { onRealTier } from '@mgpu/shared/test-tier';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, seedRequest, startBffTest, uniqueName } from '../test-support/bff-harness.js';

const cleanups: (() => Promise<unknown>)[] = [];
const harness = startBffTest({}, cleanups);
const name = uniqueName('usage-cards');

beforeAll(async () => {
  const { namespace } = harness;
  await harness.caller.workload.create({
    request: seedRequest(name, { namespace, replicas: 2 }),
    clientRequestId: uniqueName('c'),
    lang: 'en',
  });
  cleanups.push(() => harness.caller.workload.delete({ namespace, name }));
  await eventually(
    () =>
      harness.bff.context.allocations.snapshot({ namespace }).filter((r) => r.workload === name)
        .length > 0,
    'the workload’s allocation records',
  );
}, 120_000);

describe('usage.cards by nodes', () => {
  it('answers every node named in one call, and nothing of a node not named', async () => {
    const everyone = await harness.caller.usage.cards({});
    const nodes = [...new Set(everyone.cards.map((card) => card.node))].sort();
    expect(nodes.length).toBeGreaterThan(1);
    const [first, second] = nodes as [string, string];
    const two = await harness.caller.usage.cards({ nodes: [first, second] });
    expect([...new Set(two.cards.map((card) => card.node))].sort()).toEqual([first, second]);
    const one = await harness.caller.usage.cards({ nodes: [second] });
    expect(one.cards.map((card) => `${card.node}/${card.card}`)).toEqual(
      two.cards.filter((card) => card.node === second).map((card) => `${card.node}/${card.card}`),
    );
    // The workload's instances are on the cards of the nodes holding them, and no others.
    const ours = harness.bff.context.allocations
      .snapshot({ namespace: harness.namespace })
      .filter((record) => record.workload === name);
    const answer = await harness.caller.usage.cards({ nodes: ours.map((record) => record.node) });
    const ids = answer.cards.flatMap((card) => card.instances.map((instance) => instance.id));
    for (const record of ours) expect(ids).toContain(record.id);
    expect(answer.cards.every((card) => ours.some((record) => record.node === card.node))).toBe(
      true,
    );
    expect(answer.cards.every((card) => card.withheld === null)).toBe(true);
  });
});

describe('cluster.history says where its used compute comes from', () => {
  it('the embedded cluster’s model, simulated; none on the real tier', async () => {
    const history = await harness.caller.cluster.history();
    expect(history.usage).toEqual(
      onRealTier()
        ? { source: 'unavailable', simulated: false }
        : { source: 'embedded', simulated: true },
    );
  });
});
