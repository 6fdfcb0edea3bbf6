import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { WorkloadRequestSchema } from './request.js';
import { readRollout } from './rollout.js';
import { SEED_REQUEST } from './seed-request.js';

/** The seed's Deployment at compute `compute`, as the console writes it. */
const deploymentAt = (compute: string, replicas = 2) => {
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

const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
/** A pod made from a template, with the scheduler's annotations the template does not have. */
const podOf = (
  name: string,
  template: { metadata: object; spec: object },
  status: object = ready,
) => ({
  metadata: {
    ...structuredClone(template.metadata),
    name,
    annotations: {
      ...((template.metadata as { annotations?: object }).annotations ?? {}),
      'vke.volcengine.com/gpu-index-container-worker': '0,1',
    },
  },
  spec: structuredClone(template.spec),
  status,
});

describe('readRollout: old and new pods of a rolling update', () => {
  it('tells the edited template’s pods from the old ones while it rolls', () => {
    const before = deploymentAt('1.2');
    const after = deploymentAt('1.6');
    const rollout = readRollout(after, [
      podOf('demo-old-a', before.spec.template),
      podOf('demo-new-a', after.spec.template),
      podOf('demo-new-b', after.spec.template, { phase: 'Pending', conditions: [] }),
    ]);
    expect(rollout).toMatchObject({
      newPods: ['demo-new-a', 'demo-new-b'],
      oldPods: ['demo-old-a'],
      desired: 2,
      updated: 2,
      ready: 2,
      state: 'progressing',
      stall: null,
    });
  });

  it('is complete once every pod is new and ready', () => {
    const after = deploymentAt('1.6');
    expect(
      readRollout(after, [podOf('a', after.spec.template), podOf('b', after.spec.template)])?.state,
    ).toBe('complete');
  });

  it('names why it stalled: a new pod fits nowhere, the quota refuses, the deadline passed', () => {
    const after = deploymentAt('1.6');
    const stuck = podOf('b', after.spec.template, {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', message: '0/4 nodes are available' }],
    });
    expect(readRollout(after, [podOf('a', after.spec.template), stuck])).toMatchObject({
      state: 'stalled',
      stall: 'unschedulable',
      message: '0/4 nodes are available',
    });
    expect(
      readRollout(after, [podOf('a', after.spec.template)], { quotaRefusesNewPod: true }),
    ).toMatchObject({ state: 'stalled', stall: 'quota-refused' });
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
    expect(readRollout(late, [podOf('a', after.spec.template)])).toMatchObject({
      stall: 'progress-deadline',
      message: 'ReplicaSet "demo-5c" has timed out progressing.',
    });
  });

  it('has no rollout for a Job', () => {
    expect(readRollout({ kind: 'Job' }, [])).toBeUndefined();
  });
});
