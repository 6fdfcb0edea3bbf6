import { describe, expect, it } from 'vitest';
import { controllerOf, workloadOfPod } from './ownership.js';

const owned = (
  references: { kind: string; name: string; uid?: string; controller?: boolean }[],
  hash?: string,
) => ({
  metadata: {
    ownerReferences: references,
    ...(hash === undefined ? {} : { labels: { 'pod-template-hash': hash } }),
  },
});

describe('ownership', () => {
  it('reads the controller as the reference marked controller, not the first', () => {
    const object = owned([
      { kind: 'Namespace', name: 'team', uid: 'n1' },
      { kind: 'ReplicaSet', name: 'web-5d9f', uid: 'r1', controller: true },
    ]);
    expect(controllerOf(object)).toEqual({ kind: 'ReplicaSet', name: 'web-5d9f', uid: 'r1' });
    expect(controllerOf(owned([{ kind: 'Namespace', name: 'team', uid: 'n1' }]))).toBeUndefined();
  });

  it('follows a pod through its ReplicaSet to the Deployment by the template hash', () => {
    const pod = owned([{ kind: 'ReplicaSet', name: 'web-5d9f', controller: true }], '5d9f');
    expect(workloadOfPod(pod)).toEqual({ kind: 'Deployment', name: 'web' });
  });

  it('keeps any other owner as the workload itself', () => {
    expect(workloadOfPod(owned([{ kind: 'StatefulSet', name: 'db', controller: true }]))).toEqual({
      kind: 'StatefulSet',
      name: 'db',
    });
    // A ReplicaSet not named after a Deployment's template is its own workload.
    expect(workloadOfPod(owned([{ kind: 'ReplicaSet', name: 'batch' }], '5d9f'))).toEqual({
      kind: 'ReplicaSet',
      name: 'batch',
    });
    expect(workloadOfPod({ metadata: {} })).toBeUndefined();
  });
});
