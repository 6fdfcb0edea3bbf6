/**
 * `workload.watch` (issue 17): `/workloads` live over SSE instead of polling `workload.list`:
 * a snapshot, then each workload as it appears, changes and goes; a reconnect that missed
 * nothing gets no second snapshot.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import type { WorkloadListEvent } from '@mgpu/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  seedRequest,
  startBffTest,
  subscribe,
  uniqueName,
} from './test-support/bff-harness.js';

const cleanups: (() => Promise<unknown>)[] = [];
const harness = startBffTest({}, cleanups);
const namespace = uniqueName('watch');
beforeAll(async () => {
  const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  cleanups.push(() => core.deleteNamespace({ name: namespace }));
});

const watchUrl = () =>
  `${harness.url}/trpc/workload.watch?input=${encodeURIComponent(JSON.stringify({ namespace }))}`;

/** The subscriber's list after applying every event, as the /workloads page does. */
function listAfter(events: readonly WorkloadListEvent[]) {
  const held = new Map<string, WorkloadListEvent['workloads'][number]>();
  for (const event of events) {
    if (event.type === 'snapshot') held.clear();
    for (const workload of event.workloads) {
      const key = `${workload.kind}/${workload.namespace}/${workload.name}`;
      if (event.type === 'delete') held.delete(key);
      else held.set(key, workload);
    }
  }
  return [...held.values()];
}

describe('workload.watch', () => {
  it('streams the list: snapshot, the new workload until verified, its deletion', async () => {
    const watch = subscribe(watchUrl());
    const events = () =>
      watch.messages.map((message) => message.event as unknown as WorkloadListEvent);
    try {
      const [snapshot] = await eventually(
        () => (events().length > 0 ? events() : undefined),
        'the snapshot',
      );
      expect(snapshot).toEqual({ type: 'snapshot', workloads: [] });

      const name = uniqueName('live');
      await harness.caller.workload.create({
        request: seedRequest(name, { namespace }),
        lang: 'en',
      });
      const verified = await eventually(
        () => listAfter(events()).find((workload) => workload.verification === 'verified'),
        'the workload to arrive verified',
      );
      expect(verified).toMatchObject({
        name,
        namespace,
        kind: 'Deployment',
        replicas: 1,
        readyReplicas: 1,
      });
      expect(
        events()
          .slice(1)
          .every((event) => event.type !== 'snapshot'),
      ).toBe(true);
      // The stream and the query agree.
      expect(listAfter(events())).toEqual(await harness.caller.workload.list({ namespace }));

      await harness.caller.workload.delete({ namespace, name });
      await eventually(() => listAfter(events()).length === 0, 'the workload to go');
      expect(events().at(-1)).toMatchObject({ type: 'delete', workloads: [{ name }] });
    } finally {
      watch.source.close();
    }
  });

  it('resumes without a second snapshot when nothing was missed', async () => {
    const first = subscribe(watchUrl());
    await eventually(() => first.messages.length > 0, 'the first snapshot');
    first.source.close();
    const lastEventId = first.messages.at(-1)?.id ?? '';
    expect(lastEventId).not.toBe('');

    const resumed = subscribe(watchUrl(), lastEventId);
    try {
      const name = uniqueName('resume');
      await harness.caller.workload.create({
        request: seedRequest(name, { namespace }),
        lang: 'en',
      });
      const [event] = await eventually(
        () => (resumed.messages.length > 0 ? resumed.messages : undefined),
        'the next change',
      );
      // The first thing the resumed stream says is the change, not the list again.
      expect((event?.event as unknown as WorkloadListEvent | undefined)?.type).toBe('upsert');
      await harness.caller.workload.delete({ namespace, name });
    } finally {
      resumed.source.close();
    }
  });
});
