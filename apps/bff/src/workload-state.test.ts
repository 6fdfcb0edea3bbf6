/**
 * The one workload state (issue 27) as the API sends it: a workload whose pods only wait for a
 * node reads `pending` in `workload.list` and `workload.progress`, never failed; an edit whose
 * new pod fits no node while the old one runs reads `stalled`, and the list shows each
 * revision's shares. `cluster.namespaces` offers every namespace the operator may list.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { type WorkloadProgress, WorkloadRequestSchema } from '@mgpu/shared';
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

const cleanups: (() => Promise<unknown>)[] = [];
const harness = startBffTest({}, cleanups);

const listed = async (name: string) =>
  (await harness.caller.workload.list({ namespace: 'default' })).find((w) => w.name === name);

/** The first progress state that `accept` takes. */
async function progressUntil(name: string, accept: (progress: WorkloadProgress) => boolean) {
  const stream = await harness.caller.workload.progress({ namespace: 'default', name });
  for await (const item of stream) {
    const progress = trackedData<WorkloadProgress>(item);
    if (accept(progress)) return progress;
  }
  throw new Error('the stream ended');
}

describe('the workload state in the API', () => {
  it('reads pending, never failed, while the pods wait for a node', async () => {
    const name = uniqueName('waits');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: seedRequest(name, { replicas: 1 }, PENDING_GPU),
      lang: 'en',
    });
    const summary = await eventually(async () => {
      const found = await listed(name);
      return found?.state?.reason === 'unschedulable' ? found : undefined;
    }, 'the list to say why it waits');
    expect(summary.state).toMatchObject({ state: 'pending', reason: 'unschedulable' });
    expect(summary.readyReplicas).toBe(0);

    const progress = await progressUntil(name, (p) => p.pods.some((pod) => pod.unschedulable));
    expect(progress.state).toMatchObject({ state: 'pending', reason: 'unschedulable' });
    expect(progress.outcome).not.toBe('failed');
    expect(progress.stages.map((stage) => stage.state)).not.toContain('failed');
    // The page names the real kind, offers each container's log (Events need not load first),
    // and a rollback from it sends the version it shows, the one an edit form would read.
    expect(progress.kind).toBe('Deployment');
    expect(progress.pods[0]?.containers).toEqual(
      seedRequest(name, { replicas: 1 }, PENDING_GPU).containers.map((container) => container.name),
    );
    await eventually(async () => {
      const live = await harness.caller.workload.get({ namespace: 'default', name });
      const shown = await progressUntil(name, () => true);
      return shown.resourceVersion === live.resourceVersion ? true : undefined;
    }, 'the progress to carry the version workload.get reads');
  });

  it('reads stalled when an edit’s new pod fits no node while the old one runs', async () => {
    const name = uniqueName('stuck-edit');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: WorkloadRequestSchema.parse(seedRequest(name)),
      lang: 'en',
    });
    // The Deployment's status and its pods come through separate watches, so the list can read
    // the ready status a moment before the pod itself arrives: wait for both.
    const running = await eventually(async () => {
      const found = await listed(name);
      return found?.state?.state === 'running' && found.revisions?.length ? found : undefined;
    }, 'the seed to run with its pod listed');
    // At rest every pod runs the template: one revision, with the template's shares.
    expect(running.revisions).toEqual([
      { current: true, pods: 1, ready: 1, scheduled: 1, containers: running.containers },
    ]);
    const form = await harness.caller.workload.get({ namespace: 'default', name });
    await harness.caller.workload.update({
      namespace: 'default',
      name,
      resourceVersion: form.resourceVersion,
      request: WorkloadRequestSchema.parse(seedRequest(name, { replicas: 1 }, PENDING_GPU)),
      lang: 'en',
    });
    const summary = await eventually(async () => {
      const found = await listed(name);
      return found?.state?.state === 'stalled' ? found : undefined;
    }, 'the edit to stall');
    expect(summary.state?.reason).toBe('unschedulable');
    // One share per revision, each with its pods: the old pod runs the seed's, the new waits.
    const revisions = summary.revisions ?? [];
    expect(revisions).toHaveLength(2);
    expect(revisions[0]).toMatchObject({ current: true, pods: 1, ready: 0 });
    expect(revisions[1]).toMatchObject({ current: false, pods: 1, ready: 1 });
    expect(revisions[0]?.containers[0]?.cards).toBe(8);
    expect(revisions[1]?.containers[0]?.cards).not.toBe(8);

    const progress = await progressUntil(name, (p) => p.state?.state === 'stalled');
    expect(progress.state?.reason).toBe('unschedulable');
    expect(progress.outcome).not.toBe('failed');
  });

  it('offers every namespace the operator may list, even one without workloads', async () => {
    const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
    const namespace = uniqueName('empty');
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    cleanups.push(() => core.deleteNamespace({ name: namespace }));
    const namespaces = await harness.caller.cluster.namespaces();
    expect(namespaces).toContain('default');
    expect(namespaces).toContain(namespace);
  });
});
