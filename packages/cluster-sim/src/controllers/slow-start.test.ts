import { BatchV1Api, type V1Job, type V1ReplicaSet } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ControllerCluster,
  eventually,
  startControllerCluster,
} from '../test-support/controller-cluster.js';
import { BURST_REPLICAS, slowStartBatch, slowStartBatchSizes } from './slow-start.js';

describe('slow start arithmetic', () => {
  it('doubles from the initial batch and cuts the last one short', () => {
    expect(slowStartBatchSizes(0)).toEqual([]);
    expect(slowStartBatchSizes(1)).toEqual([1]);
    expect(slowStartBatchSizes(10)).toEqual([1, 2, 4, 3]);
    expect(slowStartBatchSizes(BURST_REPLICAS)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 245]);
    expect(slowStartBatchSizes(7, 2)).toEqual([2, 4, 1]);
  });

  it('stops after the first batch with a failure and counts the successes', async () => {
    let calls = 0;
    const result = await slowStartBatch(100, 1, async () => {
      calls += 1;
      if (calls === 5) throw new Error('quota');
    });
    // Batches 1, 2, 4: the fifth call is in the third batch, which still runs to its end.
    expect(calls).toBe(7);
    expect(result.successes).toBe(6);
    expect(String(result.error)).toContain('quota');
  });

  it('stops between batches once stopped', async () => {
    let calls = 0;
    const result = await slowStartBatch(
      100,
      1,
      async () => {
        calls += 1;
      },
      () => calls >= 3,
    );
    expect(calls).toBe(3);
    expect(result.successes).toBe(3);
  });
});

// The embedded controllers' own batching: on the real tier kube-controller-manager, the
// reference this copies, would be the one creating the pods.
describe.skipIf(onRealTier())('slow start on the embedded cluster', () => {
  let cluster: ControllerCluster;
  let namespace: string;

  beforeAll(async () => {
    cluster = await startControllerCluster();
    namespace = await cluster.createNamespace('slowstart');
  }, 60_000);
  afterAll(async () => cluster?.close());

  /** Live pods of the test's namespace, counted until `done` says enough; the API must answer. */
  const podCounts = async (what: string, done: (live: number) => boolean) => {
    const seen: number[] = [];
    await eventually(
      async () => {
        // The API keeps answering while the controller works (no time asserted: noisy hosts).
        const list = await cluster.core.listNamespacedPod({ namespace });
        const live = list.items.filter((pod) => !pod.metadata?.deletionTimestamp).length;
        seen.push(live);
        return done(live) ? true : undefined;
      },
      60_000,
      what,
    );
    return seen;
  };

  it('creates pods in bursts of at most 500 while the API answers', async () => {
    const rs: V1ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'huge', namespace },
      spec: {
        replicas: 1e9,
        selector: { matchLabels: { app: 'huge' } },
        template: {
          metadata: { labels: { app: 'huge' } },
          // Nobody serves this scheduler: the pods stay Pending.
          spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] },
        },
      },
    };
    await cluster.apps.createNamespacedReplicaSet({ namespace, body: rs });
    const seen: number[] = [];
    await eventually(
      async () => {
        // The API keeps answering while the controller creates (no time asserted: noisy hosts).
        const list = await cluster.core.listNamespacedPod({ namespace });
        seen.push(list.items.length);
        return list.items.length >= 2 * BURST_REPLICAS ? true : undefined;
      },
      60_000,
      'two bursts of pods',
    );
    // The first answers came while the first burst was still being created.
    expect(seen[0]).toBeLessThanOrEqual(BURST_REPLICAS);
    const current = await cluster.apps.readNamespacedReplicaSet({ name: 'huge', namespace });
    if (current.spec) current.spec.replicas = 0;
    await cluster.apps.replaceNamespacedReplicaSet({ name: 'huge', namespace, body: current });
    await eventually(
      async () => {
        const list = await cluster.core.listNamespacedPod({ namespace });
        return list.items.filter((pod) => !pod.metadata?.deletionTimestamp).length === 0
          ? true
          : undefined;
      },
      60_000,
      'the pods deleted',
    );
  }, 120_000);

  it("creates a Job's pods in bursts of at most 500 while the API answers", async () => {
    const batch = cluster.kubeConfig.makeApiClient(BatchV1Api);
    const job: V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'huge-job', namespace },
      spec: {
        parallelism: 1e9,
        completions: 1e9,
        template: {
          metadata: { labels: { app: 'huge-job' } },
          spec: {
            // Nobody serves this scheduler: the pods stay Pending.
            schedulerName: 'nobody',
            restartPolicy: 'Never',
            containers: [{ name: 'c', image: 'busybox' }],
          },
        },
      },
    };
    await batch.createNamespacedJob({ namespace, body: job });
    const seen = await podCounts(
      "two bursts of the Job's pods",
      (live) => live >= 2 * BURST_REPLICAS,
    );
    // The first answers came while the first burst was still being created.
    expect(seen[0]).toBeLessThanOrEqual(BURST_REPLICAS);

    // Parallelism lowered to nothing: the surplus goes, a burst per sync as well.
    await batch.patchNamespacedJob({
      name: 'huge-job',
      namespace,
      body: [{ op: 'replace', path: '/spec/parallelism', value: 0 }],
    });
    const [atChange = 0] = await podCounts('a count after the change', () => true);
    const after = await podCounts("the Job's pods deleted", (live) => live === 0);
    // The controller reads the Job again between bursts: at most the burst under way and one
    // more begun before its cache saw the change, not creates until the first failure.
    expect(Math.max(...after)).toBeLessThanOrEqual(atChange + 2 * BURST_REPLICAS);
  }, 120_000);
});
