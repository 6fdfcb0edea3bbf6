import type { Operator } from '@mgpu/api';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  PENDING_GPU,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  uniqueName,
} from './test-support/bff-harness.js';
import { operatorCaller, operatorWithToken } from './test-support/operators.js';

const harness = startBffTest();
/** An operator whose every review and call fails: a token the API server does not accept. */
let refused: Operator;
beforeAll(() => {
  refused = operatorWithToken(harness.connection.kubeConfig, 'not-a-token', 'nobody');
});

describe('one verdict on a request, in the preview every client reads (spec §9)', () => {
  it('says placeable, waiting (naming the replica and why) or invalid', async () => {
    const fits = await harness.caller.workload.preview({
      request: seedRequest(uniqueName('fits')),
      lang: 'en',
    });
    expect(fits.verdict).toEqual({ verdict: 'placeable', replicas: 1 });

    const waiting = await harness.caller.workload.preview({
      request: seedRequest(uniqueName('waits'), {}, PENDING_GPU),
      lang: 'en',
    });
    expect(waiting.valid).toBe(true);
    expect(waiting.verdict).toMatchObject({
      verdict: 'waiting',
      firstWaiting: 1,
      waitingCount: 1,
    });
    // The reasons are the placement's own for that replica, not a second diagnosis.
    const refused = waiting.placement.replicas.find((replica) => !replica.ok);
    expect(waiting.verdict.verdict === 'waiting' && waiting.verdict.rejections).toEqual(
      refused?.rejections,
    );
    expect(refused?.rejections.length).toBeGreaterThan(0);

    const invalid = await harness.caller.workload.preview({
      request: seedRequest(uniqueName('bad'), {}, { ...PENDING_GPU, compute: '0.015' }),
      lang: 'en',
    });
    expect(invalid.verdict.verdict).toBe('invalid');
    expect(invalid.verdict.verdict === 'invalid' && invalid.verdict.rules.length).toBeGreaterThan(
      0,
    );
  });

  it('judges a scale by the replicas it adds beside the running pods, and changes nothing', async () => {
    const name = uniqueName('scale');
    deleteAfterTest(harness, name);
    const request = seedRequest(name);
    await harness.caller.workload.create({ request, lang: 'en' });
    await eventually(
      async () =>
        (await harness.caller.workload.list()).find(
          (item) => item.name === name && item.readyReplicas === 1,
        ),
      'the seed example to run',
    );
    const ask = (replicas: number) =>
      harness.caller.workload.scalePreview({ namespace: 'default', name, replicas, lang: 'en' });

    // The running replica keeps its cards: a second one is placed beside it, numbered 2.
    const two = await ask(2);
    expect(two.running).toBe(1);
    expect(two.verdict).toEqual({ verdict: 'placeable', replicas: 1 });
    expect(two.placement.replicas.map((replica) => replica.replica)).toEqual([1]);

    // Scaling down places nothing.
    expect((await ask(0)).verdict).toEqual({ verdict: 'placeable', replicas: 0 });

    // Some count passes the rules (the cluster holds that many when empty) yet more replicas
    // than are free now: those wait, to the last one asked for.
    let most = await ask(3);
    while (most.verdict.verdict === 'placeable')
      most = await ask(most.running + most.verdict.replicas + 1);
    expect(most.errors).toEqual([]);
    if (most.verdict.verdict !== 'waiting') throw new Error('expected a waiting verdict');
    expect(most.verdict.firstWaiting).toBeGreaterThan(1);
    expect(most.verdict.firstWaiting + most.verdict.waitingCount - 1).toBe(
      most.running + most.verdict.replicas,
    );
    expect(most.verdict.rejections.length).toBeGreaterThan(0);

    // A count the rules refuse is invalid, with the rule the scale itself would refuse with.
    const tooMany = await ask(500);
    expect(tooMany.verdict).toEqual({ verdict: 'invalid', rules: ['replicas-exceed-cluster'] });
    const refused = await ruleErrorsOf(
      harness.caller.workload.scale({ namespace: 'default', name, replicas: 500 }),
    );
    expect(refused.errors.map((error) => error.rule)).toEqual(['replicas-exceed-cluster']);

    // Asking changed nothing: still one replica wanted.
    const live = await harness.caller.workload.get({ namespace: 'default', name });
    expect(live.request.replicas).toBe(1);
  });

  it('names no node to an operator who may not list nodes, and reads a scaled workload as them', async () => {
    const theirs = operatorCaller(harness.bff.context, refused);
    const waiting = await theirs.workload.preview({
      request: seedRequest(uniqueName('withheld'), {}, PENDING_GPU),
      lang: 'en',
    });
    expect(waiting.verdict.verdict).toBe('waiting');
    const text = JSON.stringify(waiting.verdict);
    for (const node of await harness.caller.cluster.nodes()) expect(text).not.toContain(node.name);

    // Their own identity reads the workload a scale preview judges: refused, nothing shown.
    const name = uniqueName('theirs');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({ request: seedRequest(name), lang: 'en' });
    await expect(
      theirs.workload.scalePreview({ namespace: 'default', name, replicas: 2, lang: 'en' }),
    ).rejects.toThrow();
  });
});
