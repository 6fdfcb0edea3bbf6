/**
 * The recorder against the embedded API server (or the real one, MGPU_TEST_KUBECONFIG): repeats land on one Event with their count,
 * every pod's outcome gets its Event, and a queue the API cannot drain sheds count updates
 * before it ever gives up an object's first Event (and says so when it must).
 */
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { type KubeClients, makeClients } from '@mgpu/kube-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestCluster, type TestCluster } from '../apiserver/test-cluster.js';
import { eventually } from '../test-support/controller-cluster.js';
import { EventRecorder } from './event-recorder.js';

// The rate-limited writes take a second or two; a loaded machine takes longer.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let cluster: TestCluster;
let clients: KubeClients;
let namespace: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  clients = makeClients(cluster.kubeConfig);
  namespace = await cluster.createNamespace('events');
});

afterAll(async () => {
  await cluster?.close();
});

const pod = (name: string): V1Pod => ({
  metadata: { name, namespace: namespace, uid: `${name}-uid` },
});

async function eventsOf(name: string): Promise<CoreV1Event[]> {
  const list = await clients.core.listNamespacedEvent({
    namespace: namespace,
    fieldSelector: `involvedObject.name=${name}`,
  });
  return list.items;
}

describe('EventRecorder', () => {
  it('writes repeats of one event as one Event with their count', async () => {
    const recorder = new EventRecorder(clients, { component: 'mgpu-scheduler' });
    for (let index = 0; index < 5; index++)
      recorder.pod(pod('repeat-0'), 'Warning', 'FailedScheduling', '0/8 nodes: no free card');
    recorder.pod(pod('repeat-0'), 'Normal', 'Scheduled', 'Successfully assigned to node-1');
    await recorder.idle();
    const events = await eventsOf('repeat-0');
    expect(
      events
        .map((event) => [event.reason, event.count])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['FailedScheduling', 5],
      ['Scheduled', 1],
    ]);
    const stats = recorder.stats();
    expect(stats.emitted).toBe(6);
    expect(stats.outcomesLost).toBe(0);
    recorder.stop();
  });

  it("gives every pod's outcome its Event, however fast they come", async () => {
    const recorder = new EventRecorder(clients, {
      component: 'mgpu-scheduler',
      qps: 300,
      burst: 20,
    });
    const pods = Array.from({ length: 300 }, (_, index) => `burst-${index}`);
    for (const name of pods) recorder.pod(pod(name), 'Normal', 'Scheduled', `assigned ${name}`);
    await recorder.idle();
    const list = await clients.core.listNamespacedEvent({ namespace: namespace });
    const withEvent = new Set(list.items.map((event) => event.involvedObject.name));
    expect(pods.filter((name) => !withEvent.has(name))).toEqual([]);
    expect(recorder.stats()).toMatchObject({ creates: 300, outcomesLost: 0, repeatsShed: 0 });
    recorder.stop();
  });

  it('when full, sheds count updates first and counts a first event it cannot keep', async () => {
    // No write tokens at all: the queue only fills, so its choices can be seen.
    const recorder = new EventRecorder(clients, {
      component: 'mgpu-scheduler',
      maxPending: 3,
      burst: 0,
      qps: 0.001,
    });
    for (const name of ['full-0', 'full-1', 'full-2'])
      recorder.pod(pod(name), 'Normal', 'Scheduled', 'assigned');
    // A repeat of a waiting event folds into its write: nothing is shed.
    recorder.pod(pod('full-0'), 'Normal', 'Scheduled', 'assigned');
    expect(recorder.stats()).toMatchObject({ pending: 3, coalesced: 1, outcomesLost: 0 });
    // Only first events wait, so a fourth object's first event is refused and counted.
    recorder.pod(pod('full-3'), 'Normal', 'Scheduled', 'assigned');
    expect(recorder.stats()).toMatchObject({ pending: 3, outcomesLost: 1 });
    recorder.stop();
  });

  it('makes room for a first event by shedding a waiting count update', async () => {
    // One write token: room-1's Event is created, then nothing more goes out.
    const recorder = new EventRecorder(clients, {
      component: 'mgpu-scheduler',
      maxPending: 2,
      burst: 1,
      qps: 0.001,
    });
    recorder.pod(pod('room-1'), 'Warning', 'FailedScheduling', 'no free card');
    await eventually(() => (recorder.stats().creates === 1 ? true : undefined));
    recorder.pod(pod('room-1'), 'Warning', 'FailedScheduling', 'no free card');
    recorder.pod(pod('room-2'), 'Normal', 'Scheduled', 'assigned');
    expect(recorder.stats()).toMatchObject({ pending: 2, repeatsShed: 0 });
    // Full: room-3's first Event takes the place of room-1's count update.
    recorder.pod(pod('room-3'), 'Normal', 'Scheduled', 'assigned');
    expect(recorder.stats()).toMatchObject({ pending: 2, repeatsShed: 1, outcomesLost: 0 });
    recorder.stop();
  });
});
