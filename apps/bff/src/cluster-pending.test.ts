import { CoreV1Api } from '@kubernetes/client-node';
import {
  type PendingGroup,
  type PendingGroupEvent,
  type PendingGroupsPage,
  type PendingPod,
  pendingPodCursor,
  REJECTION_CODES,
  ROOM_REASONS,
  VKE,
} from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  PENDING_GPU,
  seedRequest,
  startBffTest,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();

const impossibleRequest = (name: string) => seedRequest(name, { replicas: 1 }, PENDING_GPU);

/** `cluster.pendingWatch`'s events applied as the dashboard applies them: the groups it holds. */
function followGroups(events: AsyncIterator<unknown>) {
  const live = new Map<string, PendingGroup>();
  const nextEvent = async () => {
    const next = await events.next();
    if (next.done) throw new Error('the pending watch ended');
    const event = trackedData<PendingGroupEvent>(next.value);
    if (event.type === 'snapshot') live.clear();
    for (const group of event.groups)
      if (event.type === 'delete') live.delete(group.key);
      else live.set(group.key, group);
    return event;
  };
  return { live, nextEvent };
}

const pendingOf = async (workload: string) =>
  (await harness.caller.cluster.pending()).find((pod) => pod.workload === workload);

describe('cluster.pending', () => {
  it('lists a pod no node can take, with its reasons per node group, until it is deleted', async () => {
    const name = uniqueName('nofit');
    const watch = await harness.caller.cluster.pendingWatch({});
    const events = watch[Symbol.asyncIterator]();
    await harness.caller.workload.create({
      request: impossibleRequest(name),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    const pending = await eventually(async () => {
      const pod = await pendingOf(name);
      // Listed at once; the reasons are there once the pod exists in the informer's view.
      return pod && pod.rejections.length > 0 ? pod : undefined;
    }, 'the pod to be listed as pending with reasons');
    expect(pending.namespace).toBe('default');
    expect(pending.pod.startsWith(`${name}-`)).toBe(true);
    expect(new Date(pending.since).toISOString()).toBe(pending.since);
    expect(pending.fitsNow).toBeNull();
    expect(pending.containers).toEqual([
      {
        name: 'worker',
        type: 'mgpu',
        cards: 8,
        perCard: { computePercent: 90, memoryMiB: 51200 },
      },
    ]);
    expect(pending.message).toMatch(/nodes are available/);
    for (const rejection of pending.rejections) {
      expect(REJECTION_CODES).toContain(rejection.code);
      expect(rejection.group).toBeTruthy();
      expect(rejection.message).toBeTruthy();
    }
    // Every pool that lacks only room says what still fits there.
    const roomGroups = new Set(
      pending.rejections
        .filter((rejection) => (ROOM_REASONS as ReadonlySet<string>).has(rejection.reason))
        .map((rejection) => rejection.group),
    );
    expect(new Set((pending.largestFits ?? []).map((fit) => fit.pool))).toEqual(roomGroups);
    const summary = await harness.caller.cluster.summary();
    for (const fit of pending.largestFits ?? [])
      expect(fit.largestFit).toEqual(
        summary.pools.find((pool) => pool.pool === fit.pool)?.largestFit,
      );

    // The live groups carried it too: the same verdict, the pod listed under its group.
    const { live, nextEvent } = followGroups(events);
    const groupOfPod = () =>
      [...live.values()].find((group) => group.pods.some((pod) => pod.pod === pending.pod));
    expect((await nextEvent()).type).toBe('snapshot');
    while (groupOfPod() === undefined) await nextEvent();
    expect(groupOfPod()).toMatchObject({
      namespace: 'default',
      workload: name,
      podCount: 1,
      rejections: pending.rejections,
      message: pending.message,
    });

    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(async () => (await pendingOf(name)) === undefined, 'the pod to leave');
    while (groupOfPod() !== undefined) await nextEvent();
    await events.return?.();
  });

  it('drops a pod once a node can take it and the scheduler placed it', async () => {
    const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
    const name = uniqueName('waits');
    const selector = 'mgpu.console.io/pending-test';
    // A node with a card that still has 60 % and 4 GiB free, to be labelled for the pod.
    const nodes = await harness.caller.cluster.nodes();
    const target = nodes.find(
      (node) =>
        node.resourceType === 'mgpu' &&
        node.policy === 'native-burst-share' &&
        node.schedulable &&
        node.cards.some(
          (card) =>
            card.usedCompute <= 40 &&
            node.memoryMiBPerCard - card.usedMemoryMiB >= 4096 &&
            card.instances < 16,
        ),
    );
    expect(target).toBeDefined();
    const nodeName = target?.name ?? '';
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {
          name,
          annotations: { [VKE.computePolicyAnnotation]: 'native-burst-share' },
        },
        spec: {
          nodeSelector: { [selector]: name },
          containers: [
            {
              name: 'worker',
              image: 'nginx:1.27',
              resources: {
                requests: { [VKE.coreResource]: '60', [VKE.memoryResource]: '4096' },
                limits: { [VKE.coreResource]: '60', [VKE.memoryResource]: '4096' },
              },
            },
          ],
        },
      },
    });
    try {
      const pending = await eventually(async () => {
        const pod = (await harness.caller.cluster.pending()).find((entry) => entry.pod === name);
        return pod && pod.rejections.length > 0 ? pod : undefined;
      }, 'the pod to be pending');
      // A bare pod has no workload; no node carries the label it selects.
      expect(pending.workload).toBeNull();
      expect(pending.rejections.map((rejection) => rejection.code)).toContain('node-selector');
      expect(pending.largestFits).toEqual([]);

      await core.patchNode({
        name: nodeName,
        body: [{ op: 'add', path: `/metadata/labels/${selector.replace('/', '~1')}`, value: name }],
      });
      await eventually(
        async () => !(await harness.caller.cluster.pending()).some((entry) => entry.pod === name),
        'the placed pod to leave the list',
      );
      const placed = await core.readNamespacedPod({ namespace: 'default', name });
      expect(placed.spec?.nodeName).toBe(nodeName);
    } finally {
      await core.deleteNamespacedPod({ namespace: 'default', name, gracePeriodSeconds: 0 });
      await core
        .patchNode({
          name: nodeName,
          body: [{ op: 'remove', path: `/metadata/labels/${selector.replace('/', '~1')}` }],
        })
        .catch(() => undefined);
    }
  });
});

/** As many replicas as issue 25's stalled console had waiting: one workload, one shape. */
const MANY = 1500;

describe('many pending pods of one workload (issue 25)', () => {
  it('answers them as one group, every pod still listed, while /healthz answers', async () => {
    const name = uniqueName('many');
    const other = uniqueName('other');
    deleteAfterTest(harness, name);
    deleteAfterTest(harness, other);
    for (const workload of [name, other])
      await harness.caller.workload.create({
        request: impossibleRequest(workload),
        clientRequestId: uniqueName('c'),
        lang: 'en',
      });
    const watch = await harness.caller.cluster.pendingWatch({});
    const events = watch[Symbol.asyncIterator]();
    const { live, nextEvent } = followGroups(events);
    const liveGroup = (workload: string) =>
      [...live.values()].find((group) => group.workload === workload);
    expect((await nextEvent()).type).toBe('snapshot');

    // Scaled past the console's own replicas rule, as `kubectl scale` would.
    await harness.bff.context.cluster.workloads.scale('Deployment', 'default', name, MANY - 1);
    while ((liveGroup(name)?.podCount ?? 0) < MANY - 1 || !liveGroup(other)) await nextEvent();
    const before = liveGroup(name) as PendingGroup;
    expect(before.rejections.length).toBeGreaterThan(0);
    // The stream lists the first pods of a group and counts them all.
    expect(before.pods.length).toBeLessThan(before.podCount);

    // One more pod joins: only its group is sent again, not the other, not a new snapshot.
    await harness.bff.context.cluster.workloads.scale('Deployment', 'default', name, MANY);
    const joined = await nextEvent();
    expect(joined.type).toBe('upsert');
    expect(joined.groups.map((group) => [group.key, group.podCount])).toEqual([[before.key, MANY]]);
    await events.return?.();

    // Grouped: the reasons once for all 1,500 pods, the pods counted and listed on demand.
    const page = await harness.caller.cluster.pendingGroups({ podLimit: 5 });
    const groups = page.groups.filter((group) => group.workload === name);
    expect(groups).toHaveLength(1);
    const [group] = groups as [PendingGroup];
    expect(group.podCount).toBe(MANY);
    expect(group.pods).toHaveLength(5);
    expect(group.rejections).toEqual(before.rejections);
    expect(page.podCount).toBe(MANY + 1);
    const whole = await harness.caller.cluster.pendingGroups({ key: group.key, podLimit: 5000 });
    const names = whole.groups[0]?.pods.map((pod) => pod.pod) ?? [];
    expect(new Set(names).size).toBe(MANY);
    expect(names.every((pod) => pod.startsWith(`${name}-`))).toBe(true);

    // Per pod (spec §8): every pod still listed, each with its group's reasons.
    const pods = (await harness.caller.cluster.pending()).filter((pod) => pod.workload === name);
    expect(pods).toHaveLength(MANY);
    expect(new Set(pods.map((pod) => pod.pod))).toEqual(new Set(names));
    for (const pod of pods) expect(pod.rejections).toEqual(group.rejections);
    // The grouped answer does not repeat the reasons per pod: a small part of the per-pod one.
    expect(JSON.stringify(page).length * 20).toBeLessThan(JSON.stringify(pods).length);
    // Paged per pod: two pages make the whole list, in order.
    const all = await harness.caller.cluster.pending();
    const first = await harness.caller.cluster.pending({ limit: 1000 });
    const last = first.at(-1);
    expect(last).toBeDefined();
    const rest = await harness.caller.cluster.pending({
      after: pendingPodCursor(last as (typeof first)[number]),
    });
    expect([...first, ...rest].map((pod) => pod.pod)).toEqual(all.map((pod) => pod.pod));

    // 20 reads over HTTP at once (per pod and grouped, as scripts and dashboards read), started
    // as one pod leaves while the view is recomputed, and /healthz asked once the first answer's
    // headers arrived, while the other reads and the recompute are under way: all answer, each
    // with a whole state (before or after), and /healthz answers among them, not after them all.
    await harness.bff.context.cluster.workloads.scale('Deployment', 'default', name, MANY - 1);
    let finished = 0;
    let answering: () => void = () => undefined;
    const firstAnswer = new Promise<void>((resolve) => {
      answering = resolve;
    });
    const reads = Array.from({ length: 20 }, async (_, index) => {
      const procedure = index % 2 === 0 ? 'cluster.pending' : 'cluster.pendingGroups';
      const response = await fetch(`${harness.url}/trpc/${procedure}`);
      answering();
      const body = (await response.json()) as { result?: { data: unknown } };
      finished++;
      return { procedure, status: response.status, data: body.result?.data };
    });
    // A read that fails outright ends the wait too, with its error.
    await Promise.race([firstAnswer, Promise.all(reads)]);
    const health = await fetch(`${harness.url}/healthz`);
    const finishedBeforeHealth = finished;
    expect(health.status).toBe(200);
    const answers = await Promise.all(reads);
    expect(finishedBeforeHealth).toBeLessThan(answers.length);
    const after = await eventually(async () => {
      const listed = await harness.caller.cluster.pending();
      return listed.filter((pod) => pod.workload === name).length === MANY - 1 ? listed : undefined;
    }, 'the list to settle on one pod fewer');
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      if (answer.procedure === 'cluster.pending') expect([all, after]).toContainEqual(answer.data);
      else {
        const page = answer.data as PendingGroupsPage;
        const ours = page.groups.find((group) => group.workload === name);
        expect([MANY, MANY - 1]).toContain(ours?.podCount);
        expect(page.podCount).toBe((ours?.podCount ?? 0) + 1);
      }
    }
  }, 240_000);

  it('sends parallel readers of one state the same bytes: the list, plain and as a batch of one', async () => {
    const name = uniqueName('same');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: impossibleRequest(name),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    await harness.bff.context.cluster.workloads.scale('Deployment', 'default', name, 40);
    await eventually(async () => {
      const ours = (await harness.caller.cluster.pending()).filter((pod) => pod.workload === name);
      return (ours.length === 40 && ours.every((pod) => pod.rejections.length > 0)) || undefined;
    }, 'the 40 pods to be listed with their reasons');
    const plain = async () => {
      const response = await fetch(`${harness.url}/trpc/cluster.pending`);
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      };
    };
    // The 20 readers and a batch of one (as httpBatchLink asks), all answered from one state: on a
    // real cluster the pods of the test before are still being collected, so the list moves; a
    // burst that straddles a change is read again. A batch form the transport got wrong (or
    // readers answered different bytes) never lands and fails.
    const burst = await eventually(
      async () => {
        const [answers, batched] = await Promise.all([
          Promise.all(Array.from({ length: 20 }, plain)),
          fetch(`${harness.url}/trpc/cluster.pending?batch=1&input=%7B%7D`).then((response) =>
            response.text(),
          ),
        ]);
        const [before] = answers as [(typeof answers)[number]];
        const oneState =
          answers.every((answer) => answer.body === before.body) && batched === `[${before.body}]`;
        return oneState ? { before, answers, batched } : undefined;
      },
      'a burst of reads answered from one state of the pending pods',
      100,
    );
    for (const answer of burst.answers) expect(answer).toEqual(burst.before);
    expect([burst.before.status, burst.before.type]).toEqual([200, 'application/json']);
    const listed = (JSON.parse(burst.before.body) as { result: { data: PendingPod[] } }).result
      .data;
    expect(listed.filter((pod) => pod.workload === name)).toHaveLength(40);
    // The batch of one: the same list, byte for byte, in tRPC's batch form.
    expect(burst.batched).toBe(`[${burst.before.body}]`);
  });
});
