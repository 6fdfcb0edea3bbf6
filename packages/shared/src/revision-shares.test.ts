import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { WorkloadRequestSchema } from './request.js';
import { revisionShares } from './revision-shares.js';
import { SEED_REQUEST } from './seed-request.js';

/** A pod of the seed's Deployment at compute `compute`, as the controllers make it. */
const podAt = (
  name: string,
  compute: string,
  ready: boolean,
  nodeName: string | null = 'node-a',
) => {
  const request = WorkloadRequestSchema.parse({
    ...SEED_REQUEST,
    containers: SEED_REQUEST.containers.map((container) => ({
      ...container,
      gpu: { ...container.gpu, compute },
    })),
  });
  const template = (
    checkRequest(request).manifest as unknown as {
      spec: { template: { metadata: object; spec: object } };
    }
  ).spec.template;
  return {
    metadata: { ...structuredClone(template.metadata), name },
    spec: { ...structuredClone(template.spec), ...(nodeName ? { nodeName } : {}) },
    status: ready
      ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }
      : { phase: 'Pending', conditions: [] },
  };
};

describe('revisionShares: the shares live pods run with, per revision', () => {
  it('groups pods by their own shares, the current template’s first, with pod and ready counts', () => {
    const pods = [
      podAt('old-a', '1.2', true),
      podAt('old-b', '1.2', true),
      podAt('new-a', '1.6', false),
    ];
    const groups = revisionShares(pods, (pod) => pod.startsWith('new-'));
    expect(
      groups.map((group) => [group.current, group.pods, group.ready, group.containers[0]?.perCard]),
    ).toEqual([
      [true, 1, 0, { computePercent: 80, memoryMiB: 4096 }],
      [false, 2, 2, { computePercent: 60, memoryMiB: 4096 }],
    ]);
  });

  it('counts the pods a node took apart: a Pending pod holds no card', () => {
    const groups = revisionShares(
      [podAt('new-a', '1.2', true), podAt('new-b', '1.2', false, null)],
      () => true,
    );
    expect(groups.map((group) => [group.pods, group.scheduled])).toEqual([[2, 1]]);
  });

  it('has no group without pods', () => {
    expect(revisionShares([], () => true)).toEqual([]);
  });
});
