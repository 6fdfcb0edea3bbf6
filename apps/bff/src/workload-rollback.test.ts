import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { APP_LABEL, type CreatableKind, SEED_GPU, VKE, WorkloadRequestSchema } from '@mgpu/shared';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { mutation } from './hardening/hardening-support.js';
import {
  deleteAfterTest,
  eventually,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  uniqueName,
  withCompute,
} from './test-support/bff-harness.js';
import { capturedLog } from './test-support/captured-log.js';

const log = capturedLog();
const harness = startBffTest({ logger: { level: 'info', stream: log.stream } });
let apps: AppsV1Api;
let core: CoreV1Api;
beforeAll(() => {
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
  core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
});

const namespace = 'default';

/** The compute of each revision the history lists, newest first, `*` marking the current one. */
async function revisions(name: string, kind: CreatableKind) {
  const history = await harness.caller.workload.history({ namespace, name, kind });
  return history.map(
    (each) =>
      `${each.revision}:${each.request.containers[0]?.gpu?.compute}${each.current ? '*' : ''}`,
  );
}

const historyReads = (name: string, kind: CreatableKind, expected: string[]) =>
  eventually(
    async () => {
      const seen = await revisions(name, kind);
      return JSON.stringify(seen) === JSON.stringify(expected) ? seen : undefined;
    },
    `history ${expected.join(' ')}`,
  );

/**
 * Two replicas of the seed's ask pinned to the A100 pool: they take its four free cards at 60 %
 * each, so at 1.6 (80 % a card) the rollout's new pod fits nowhere while the old ones hold them.
 */
const stuckOnEdit = (name: string) =>
  seedRequest(name, { replicas: 2 }, { ...SEED_GPU, model: 'NVIDIA-A100-SXM4-80GB' });

/** A workload made by the console, then edited to compute 1.6 through `workload.update`. */
async function editedWorkload(prefix: string, kind: CreatableKind, stuck = false) {
  const name = uniqueName(prefix);
  deleteAfterTest(harness, name);
  const request = stuck ? stuckOnEdit(name) : seedRequest(name);
  await harness.caller.workload.create({
    request: WorkloadRequestSchema.parse({ ...request, kind }),
    lang: 'en',
  });
  await historyReads(name, kind, ['1:1.2*']);
  const opened = await harness.caller.workload.get({ namespace, name, kind });
  await harness.caller.workload.update({
    namespace,
    name,
    resourceVersion: opened.resourceVersion,
    request: withCompute(opened.request, '1.6'),
    lang: 'en',
  });
  await historyReads(name, kind, ['2:1.6*', '1:1.2']);
  return { name, opened };
}

const podsOf = async (name: string) =>
  (await core.listNamespacedPod({ namespace, labelSelector: `${APP_LABEL}=${name}` })).items.filter(
    (pod) => !pod.metadata?.deletionTimestamp,
  );

describe('workload.history and workload.rollback on a Deployment (spec §9)', () => {
  it('lists each ReplicaSet as the form reads it and rolls back to one, keeping its pod', async () => {
    const { name, opened } = await editedWorkload('undo', 'Deployment', true);
    // The page read its version before the edit: rolling back from it is a conflict.
    const stale = await ruleErrorsOf(
      harness.caller.workload.rollback({
        namespace,
        name,
        kind: 'Deployment',
        revision: 1,
        resourceVersion: opened.resourceVersion,
        lang: 'en',
      }),
    );
    expect(stale.code).toBe('CONFLICT');
    expect(stale.errors).toMatchObject([{ rule: 'conflict' }]);
    await historyReads(name, 'Deployment', ['2:1.6*', '1:1.2']);

    // Stuck: the new pod waits for a node while the two old ones keep their cards.
    const old = await eventually(async () => {
      const pods = await podsOf(name);
      const waiting = pods.filter((pod) =>
        pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'),
      );
      const running = pods.filter((pod) => pod.status?.phase === 'Running');
      return waiting.length === 1 && running.length === 2 ? running : undefined;
    }, 'the rollout stuck: one pod waiting, two running');
    const oldPods = old.map((pod) => `${pod.metadata?.name}@${pod.spec?.nodeName}`).sort();
    const fresh = await harness.caller.workload.get({ namespace, name, kind: 'Deployment' });
    const answer = await mutation(
      harness.url,
      'workload.rollback',
      JSON.stringify({
        namespace,
        name,
        kind: 'Deployment',
        revision: 1,
        resourceVersion: fresh.resourceVersion,
        lang: 'en',
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"after":"1.2"');
    // Kubernetes reuses revision 1's ReplicaSet under the next number, as `rollout undo` does.
    await historyReads(name, 'Deployment', ['3:1.2*', '2:1.6']);
    // No pod waits any more, and the two that ran are the ones that run, where they ran.
    const settled = await eventually(async () => {
      const pods = await podsOf(name);
      return pods.length === 2 && pods.every((pod) => pod.status?.phase === 'Running')
        ? pods
        : undefined;
    }, 'two running pods and none waiting');
    expect(settled.map((pod) => `${pod.metadata?.name}@${pod.spec?.nodeName}`).sort()).toEqual(
      oldPods,
    );
    expect(log.auditEntries()).toContainEqual(
      expect.objectContaining({ procedure: 'workload.rollback', name, outcome: 'ok' }),
    );
  });

  it('checks the rules again: a revision made outside the console that breaks one is refused', async () => {
    const name = uniqueName('rules');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: WorkloadRequestSchema.parse(seedRequest(name)),
      lang: 'en',
    });
    await historyReads(name, 'Deployment', ['1:1.2*']);
    // kubectl edit: 1.21 of compute, which rule compute-format refuses (one decimal above 1).
    const core = `${VKE.coreResource.replace('/', '~1')}`;
    const body = ['limits', 'requests'].map((side) => ({
      op: 'replace',
      path: `/spec/template/spec/containers/0/resources/${side}/${core}`,
      value: '121',
    }));
    await apps.patchNamespacedDeployment(
      { namespace, name, body },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await historyReads(name, 'Deployment', ['2:1.21*', '1:1.2']);

    const back = await harness.caller.workload.get({ namespace, name });
    await harness.caller.workload.rollback({
      namespace,
      name,
      revision: 1,
      resourceVersion: back.resourceVersion,
      lang: 'en',
    });
    await historyReads(name, 'Deployment', ['3:1.2*', '2:1.21']);

    const again = await harness.caller.workload.get({ namespace, name });
    const refused = await ruleErrorsOf(
      harness.caller.workload.rollback({
        namespace,
        name,
        revision: 2,
        resourceVersion: again.resourceVersion,
        lang: 'en',
      }),
    );
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors).toMatchObject([{ rule: 'compute-format' }]);
    await historyReads(name, 'Deployment', ['3:1.2*', '2:1.21']);

    const missing = await ruleErrorsOf(
      harness.caller.workload.rollback({
        namespace,
        name,
        revision: 9,
        resourceVersion: again.resourceVersion,
        lang: 'en',
      }),
    );
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.errors).toMatchObject([{ rule: 'revision-not-found' }]);
  });
});

describe('workload.history and workload.rollback on a StatefulSet and a Job (spec §9)', () => {
  it('lists the ControllerRevisions and rolls back to one; its pod runs that revision again', async () => {
    const { name, opened } = await editedWorkload('sts-undo', 'StatefulSet');
    const stale = await ruleErrorsOf(
      harness.caller.workload.rollback({
        namespace,
        name,
        kind: 'StatefulSet',
        revision: 1,
        resourceVersion: opened.resourceVersion,
        lang: 'en',
      }),
    );
    expect(stale.errors).toMatchObject([{ rule: 'conflict' }]);

    const fresh = await harness.caller.workload.get({ namespace, name, kind: 'StatefulSet' });
    const result = await harness.caller.workload.rollback({
      namespace,
      name,
      kind: 'StatefulSet',
      revision: 1,
      resourceVersion: fresh.resourceVersion,
      lang: 'en',
    });
    expect(result.changes).toMatchObject([{ after: '1.2' }]);
    await historyReads(name, 'StatefulSet', ['3:1.2*', '2:1.6']);
    // The status must describe the rolled-back spec (its observed generation), not the edit's,
    // whose counters read the same; and the controller deletes the pod before it makes the new
    // one, so the pod is read in the same wait.
    const { set, pod } = await eventually(async () => {
      const read = await apps.readNamespacedStatefulSet({ namespace, name });
      const current =
        read.status?.observedGeneration === read.metadata?.generation &&
        read.status?.updatedReplicas === 1 &&
        read.status.readyReplicas === 1;
      const [running] = current ? await podsOf(name) : [];
      return running?.metadata?.labels?.['controller-revision-hash'] === read.status?.updateRevision
        ? { set: read, pod: running }
        : undefined;
    }, 'the StatefulSet back on its first revision, with its pod');
    // The pod of the revision rolled to runs the first revision's share again.
    expect(set.status?.updateRevision).toBeTruthy();
    expect(pod?.spec?.containers[0]?.resources?.limits?.[VKE.coreResource]).toBe('120');
  });

  it('answers a Job with no revisions: Kubernetes keeps none for it', async () => {
    const name = uniqueName('job-history');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: WorkloadRequestSchema.parse({ ...seedRequest(name), kind: 'Job' }),
      lang: 'en',
    });
    expect(await harness.caller.workload.history({ namespace, name, kind: 'Job' })).toEqual([]);
  });
});

describe('workload.history of a name two kinds share', () => {
  it("says kind-ambiguous in the operator's language, as rollback does, and reads the kind named", async () => {
    const name = uniqueName('twin-history');
    const batch = harness.adminKubeConfig.makeApiClient(BatchV1Api);
    const template = {
      metadata: { labels: { app: name } },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'worker', image: 'busybox' }],
      },
    };
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: { ...template, spec: { ...template.spec, restartPolicy: 'Always' } },
        },
      },
    });
    onTestFinished(async () => {
      await apps.deleteNamespacedDeployment({ namespace, name });
    });
    await batch.createNamespacedJob({
      namespace,
      body: { metadata: { name }, spec: { parallelism: 0, completions: 1, template } },
    });
    onTestFinished(async () => {
      await batch.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background' });
    });

    // Not the first kind found: which one is the operator's choice; said in their language.
    const refused = await ruleErrorsOf(harness.caller.workload.history({ namespace, name }));
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors).toMatchObject([{ rule: 'kind-ambiguous', path: 'kind' }]);
    expect(refused.errors[0]?.message).toMatch(/不止一个.*Deployment, Job/);
    expect(await harness.caller.workload.history({ namespace, name, kind: 'Job' })).toEqual([]);
  });
});
