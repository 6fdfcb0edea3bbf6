import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { WorkloadRequestSchema } from './request.js';
import { SEED_REQUEST } from './seed-request.js';
import { workloadState } from './workload-state.js';

/** The seed's Deployment at compute `compute`, as the console writes it. */
const deploymentAt = (compute: string, replicas = 1) => {
  const request = WorkloadRequestSchema.parse({
    ...SEED_REQUEST,
    replicas,
    containers: SEED_REQUEST.containers.map((container) => ({
      ...container,
      gpu: { ...container.gpu, compute },
    })),
  });
  const manifest = checkRequest(request).manifest;
  if (!manifest) throw new Error('the seed request is valid');
  return manifest as unknown as {
    kind: string;
    spec: { replicas: number; template: { metadata: object; spec: object } };
  };
};

const running = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True' }],
};
const unschedulable = {
  phase: 'Pending',
  conditions: [
    {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: '0/4 nodes are available: 4 Insufficient mGPU compute.',
    },
  ],
};
const waitingFor = (reason: string) => ({
  phase: 'Pending',
  conditions: [],
  containerStatuses: [{ name: 'worker', state: { waiting: { reason, message: `${reason} msg` } } }],
});

/** A pod made from a template; `nodeName` set unless the pod waits for a node. */
const podOf = (
  name: string,
  template: { metadata: object; spec: object },
  status: object = running,
  nodeName: string | null = 'node-a',
) => ({
  metadata: { ...structuredClone(template.metadata), name },
  spec: { ...structuredClone(template.spec), ...(nodeName ? { nodeName } : {}) },
  status,
});

describe('workloadState: one state for the list, the result page and the API', () => {
  it('a workload whose pods only wait for scheduling is pending, never failed', () => {
    const deployment = deploymentAt('1.2', 2);
    const pods = [
      podOf('a', deployment.spec.template, unschedulable, null),
      podOf('b', deployment.spec.template, { phase: 'Pending', conditions: [] }, null),
    ];
    expect(workloadState(deployment, pods)).toEqual({
      state: 'pending',
      reason: 'unschedulable',
      message: '0/4 nodes are available: 4 Insufficient mGPU compute.',
      pod: 'a',
    });
    // Not yet looked at by the scheduler: still only waiting.
    expect(workloadState(deployment, [pods[1] as (typeof pods)[number]]).state).toBe('pending');
  });

  it('a stuck edit (new pod unschedulable while the old one runs) is stalled: unschedulable', () => {
    const before = deploymentAt('1.2');
    const after = deploymentAt('1.6');
    expect(
      workloadState(after, [
        podOf('old', before.spec.template),
        podOf('new', after.spec.template, unschedulable, null),
      ]),
    ).toMatchObject({ state: 'stalled', reason: 'unschedulable', pod: 'new' });
  });

  it('an edit of a workload none of whose pods a node took is pending, not stuck on old pods', () => {
    const before = deploymentAt('1.2', 2);
    const after = deploymentAt('1.6', 2);
    // No old pod holds a card: nothing keeps the new one out that a rollback would give back.
    expect(
      workloadState(after, [
        podOf('old', before.spec.template, unschedulable, null),
        podOf('new', after.spec.template, unschedulable, null),
      ]),
    ).toMatchObject({ state: 'pending', reason: 'unschedulable' });
  });

  it('is rolling out while new pods start beside old ones, running once all are new and ready', () => {
    const before = deploymentAt('1.2');
    const after = deploymentAt('1.6');
    const starting = { phase: 'Pending', conditions: [] };
    expect(
      workloadState(after, [
        podOf('old', before.spec.template),
        podOf('new', after.spec.template, starting),
      ]).state,
    ).toBe('rolling-out');
    expect(workloadState(after, [podOf('new', after.spec.template)])).toEqual({
      state: 'running',
      reason: null,
      message: null,
      pod: null,
    });
  });

  it('rolls out only while a change is under way, not while a new pod merely gets ready', () => {
    const deployment = deploymentAt('1.2', 2);
    const notReady = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
    const pods = [
      podOf('a', deployment.spec.template),
      podOf('b', deployment.spec.template, notReady),
    ];
    // A scale-up's second pod (or a failing readiness probe): running, nothing rolls out.
    expect(workloadState(deployment, pods).state).toBe('running');
    // The controller has not yet seen the latest spec: the change is under way.
    const edited = {
      ...deployment,
      metadata: { generation: 3 },
      status: { observedGeneration: 2 },
    };
    expect(workloadState(edited, pods).state).toBe('rolling-out');
    // A new pod waiting for a node with nothing else changing: pending.
    const waiting = [
      podOf('a', deployment.spec.template),
      podOf('b', deployment.spec.template, unschedulable, null),
    ];
    expect(workloadState(deployment, waiting)).toMatchObject({ state: 'pending', pod: 'b' });
    // Scaled to zero: nothing runs and nothing is wrong.
    expect(
      workloadState({ ...deployment, spec: { ...deployment.spec, replicas: 0 } }, []).state,
    ).toBe('running');
  });

  it('a stuck StatefulSet edit is stalled although its old pod was deleted first', () => {
    const template = deploymentAt('1.6').spec.template;
    const statefulSet = {
      kind: 'StatefulSet',
      spec: { replicas: 1, template },
      status: { updateRevision: 'demo-new', currentRevision: 'demo-old' },
    };
    const pod = podOf('demo-0', template, unschedulable, null);
    pod.metadata = { ...pod.metadata, labels: { 'controller-revision-hash': 'demo-new' } } as never;
    expect(workloadState(statefulSet, [pod])).toMatchObject({
      state: 'stalled',
      reason: 'unschedulable',
      pod: 'demo-0',
    });
    // The same pod of a StatefulSet with no edit under way merely waits for a node.
    const settled = {
      ...statefulSet,
      status: { updateRevision: 'demo-new', currentRevision: 'demo-new' },
    };
    expect(workloadState(settled, [pod]).state).toBe('pending');
  });

  it('stalls on the quota and on the progress deadline', () => {
    const after = deploymentAt('1.6', 2);
    expect(
      workloadState(after, [podOf('a', after.spec.template)], { quotaRefusesNewPod: true }),
    ).toMatchObject({ state: 'stalled', reason: 'quota-refused' });
    const late = {
      ...after,
      status: {
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: 'ReplicaSet "demo-5c" has timed out progressing.',
          },
        ],
      },
    };
    expect(workloadState(late, [podOf('a', after.spec.template)])).toMatchObject({
      state: 'stalled',
      reason: 'progress-deadline',
    });
  });

  it("fails or stalls, in Kubernetes' words, when it refuses to create the pods (ReplicaFailure): never Running", () => {
    const refused = {
      ...deploymentAt('1.2'),
      status: {
        conditions: [
          {
            type: 'ReplicaFailure',
            status: 'True',
            reason: 'FailedCreate',
            message: 'pods "demo-5c-x" is forbidden: violates PodSecurity "restricted:latest"',
          },
        ],
      },
    };
    // A new workload: nothing runs, nothing to roll back to, and it will not start until changed.
    expect(workloadState(refused, [])).toEqual({
      state: 'failed',
      reason: 'create-refused',
      message: 'pods "demo-5c-x" is forbidden: violates PodSecurity "restricted:latest"',
      pod: null,
    });
    // An edit whose new pods are refused while the old one runs: that rollout is stuck.
    const before = deploymentAt('1.2');
    expect(
      workloadState({ ...refused, ...deploymentAt('1.6'), status: refused.status }, [
        podOf('old', before.spec.template),
      ]),
    ).toMatchObject({ state: 'stalled', reason: 'create-refused' });
    // A scale-up refused beside pods that run: stalled, not failed.
    expect(
      workloadState({ ...refused, spec: { ...refused.spec, replicas: 2 } }, [
        podOf('running', refused.spec.template),
      ]),
    ).toMatchObject({ state: 'stalled', reason: 'create-refused' });
    // A Recreate edit scaled the old pods away before its new ones were refused: the edit is
    // stuck (revision 2), and a rollback could help.
    const recreated = {
      ...refused,
      metadata: { annotations: { 'deployment.kubernetes.io/revision': '2' } },
    };
    expect(workloadState(recreated, [])).toMatchObject({
      state: 'stalled',
      reason: 'create-refused',
    });
    // A blocked delete (FailedDelete) is not a refusal to create.
    const blocked = structuredClone(refused);
    const [failure] = blocked.status.conditions;
    if (failure) failure.reason = 'FailedDelete';
    expect(workloadState(blocked, []).reason).not.toBe('create-refused');
    // The quota's refusal keeps its own reason.
    const quota = structuredClone(refused);
    const [condition] = quota.status.conditions;
    if (condition) condition.message = 'pods "demo-5c-x" is forbidden: exceeded quota: gpu';
    expect(workloadState(quota, [])).toMatchObject({ state: 'stalled', reason: 'quota-refused' });
  });

  it('is failed only on a real failure: an image that does not pull, a crash loop', () => {
    const deployment = deploymentAt('1.2');
    for (const reason of ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName'])
      expect(
        workloadState(deployment, [podOf('a', deployment.spec.template, waitingFor(reason))]),
      ).toMatchObject({ state: 'failed', reason: 'image-pull', pod: 'a' });
    expect(
      workloadState(deployment, [
        podOf('a', deployment.spec.template, waitingFor('CrashLoopBackOff')),
      ]),
    ).toMatchObject({ state: 'failed', reason: 'crash-loop', message: 'CrashLoopBackOff msg' });
    // A container still being created is not a failure (nor a rollout: nothing changed).
    expect(
      workloadState(deployment, [
        podOf('a', deployment.spec.template, waitingFor('ContainerCreating')),
      ]).state,
    ).toBe('running');
  });

  it('does not count pods on their way out', () => {
    const before = deploymentAt('1.2');
    const after = deploymentAt('1.6');
    const leaving = podOf('old', before.spec.template);
    leaving.metadata = { ...leaving.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } as never;
    expect(workloadState(after, [leaving, podOf('new', after.spec.template)]).state).toBe(
      'running',
    );
  });

  it('reads a Job: complete, failed by its condition, pending while its pods wait', () => {
    const job = (conditions: object[]) => ({ kind: 'Job', status: { conditions } });
    const template = deploymentAt('1.2').spec.template;
    expect(
      workloadState(job([{ type: 'Complete', status: 'True' }]), [
        podOf('a', template, { phase: 'Succeeded' }),
      ]).state,
    ).toBe('complete');
    expect(
      workloadState(job([{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }]), []),
    ).toMatchObject({ state: 'failed', reason: 'job-failed', message: 'BackoffLimitExceeded' });
    expect(workloadState(job([]), [podOf('a', template, unschedulable, null)])).toMatchObject({
      state: 'pending',
      reason: 'unschedulable',
    });
    expect(workloadState(job([]), [podOf('a', template)]).state).toBe('running');
    expect(
      workloadState(job([]), [podOf('a', template, waitingFor('ImagePullBackOff'))]).state,
    ).toBe('failed');
  });
});
