import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { buildWorkload } from './manifest.js';
import { WorkloadRequestSchema } from './request.js';
import { SEED_REQUEST } from './seed-request.js';
import { DEPLOYMENT_REVISION_ANNOTATION, workloadRevisions } from './workload-revisions.js';

const uid = 'uid-of-demo';

/** The seed's workload of `kind` at `compute`, as the API server returns it (with its uid). */
function live(kind: 'Deployment' | 'StatefulSet', compute: string) {
  const request = WorkloadRequestSchema.parse({
    ...SEED_REQUEST,
    kind,
    containers: SEED_REQUEST.containers.map((c) => ({ ...c, gpu: { ...c.gpu, compute } })),
  });
  const object = buildWorkload(request, checkRequest(request).containers) as unknown as {
    kind: 'Deployment' | 'StatefulSet';
    metadata: Record<string, unknown>;
    spec: { template: unknown };
  };
  return { ...object, kind, metadata: { ...object.metadata, uid } };
}

const owner = (ownerUid = uid) => [{ uid: ownerUid, controller: true }];

describe('workloadRevisions', () => {
  it("reads a Deployment's ReplicaSets newest first, the one of its template current", () => {
    const now = live('Deployment', '1.6');
    const before = live('Deployment', '1.2');
    const replicaSet = (revision: string, of: typeof now, ownerUid = uid) => ({
      metadata: {
        creationTimestamp: new Date('2026-12-06T01:00:00Z'),
        annotations: { [DEPLOYMENT_REVISION_ANNOTATION]: revision },
        ownerReferences: owner(ownerUid),
      },
      spec: { template: of.spec.template },
    });
    const revisions = workloadRevisions(now, [
      replicaSet('1', before),
      replicaSet('2', now),
      // Another Deployment's set with the same labels is not one of its revisions.
      replicaSet('7', now, 'someone-else'),
    ]);
    expect(
      revisions.map((each) => [
        each.revision,
        each.request.containers[0]?.gpu?.compute,
        each.current,
      ]),
    ).toEqual([
      [2, '1.6', true],
      [1, '1.2', false],
    ]);
    expect(revisions[1]?.createdAt).toBe('2026-12-06T01:00:00.000Z');
    // Name, namespace and replicas are the live ones: a rollback restores the template only.
    expect(revisions[1]?.request).toMatchObject({ name: 'demo', kind: 'Deployment' });
  });

  it("reads a StatefulSet's ControllerRevisions, their data a replacing patch of the template", () => {
    const now = live('StatefulSet', '1.2');
    const controllerRevision = (revision: number, of: ReturnType<typeof live>) => ({
      metadata: { ownerReferences: owner() },
      data: { spec: { template: { ...(of.spec.template as object), $patch: 'replace' } } },
      revision,
    });
    const revisions = workloadRevisions(now, [
      controllerRevision(3, now),
      controllerRevision(2, live('StatefulSet', '1.6')),
    ]);
    expect(revisions.map((each) => [each.revision, each.current])).toEqual([
      [3, true],
      [2, false],
    ]);
    expect(revisions[1]?.request.containers[0]?.gpu?.compute).toBe('1.6');
    expect(revisions[0]?.createdAt).toBeNull();
  });

  it('gives a Job no revisions: Kubernetes keeps none', () => {
    expect(workloadRevisions({ kind: 'Job', metadata: { uid } }, [])).toEqual([]);
  });
});
