import { CoreV1Api } from '@kubernetes/client-node';
import { type PendingPod, REJECTION_CODES, ROOM_REASONS, VKE } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  PENDING_GPU,
  seedRequest,
  startBffTest,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();

const impossibleRequest = (name: string) => seedRequest(name, { replicas: 1 }, PENDING_GPU);

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

    // The live list carried it too.
    for (;;) {
      const next = await events.next();
      if (next.done) throw new Error('the pending watch ended');
      if (trackedData<PendingPod[]>(next.value).some((pod) => pod.pod === pending.pod)) break;
    }

    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(async () => (await pendingOf(name)) === undefined, 'the pod to leave');
    for (;;) {
      const next = await events.next();
      if (next.done) throw new Error('the pending watch ended');
      if (!trackedData<PendingPod[]>(next.value).some((pod) => pod.pod === pending.pod)) break;
    }
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
