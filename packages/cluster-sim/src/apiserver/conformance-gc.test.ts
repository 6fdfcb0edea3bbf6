/** API conformance: garbage collection of owned objects, as kube-controller-manager's collector does it. */
import { randomUUID } from 'node:crypto';
import type { V1OwnerReference, V1ReplicaSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  apps,
  cluster,
  core,
  deployment,
  namespace,
  pod,
  useConformanceCluster,
} from '../test-support/conformance.js';
import { eventually, expectStatus, UNSCHEDULED } from './test-cluster.js';

useConformanceCluster();

describe('garbage collection', () => {
  /** A ReplicaSet of no pods with a selector of its own: only the garbage collector acts on it. */
  const idleReplicaSet = (name: string, ownerReferences: V1OwnerReference[]): V1ReplicaSet => {
    const labels = { app: name };
    return {
      metadata: { name, labels, ownerReferences },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx' }] },
        },
      },
    };
  };

  /**
   * Deployment → ReplicaSet → Pod by ownerReferences. The ReplicaSet's selector is its own and
   * its reference to the Deployment is not a controller reference, so on a real cluster the
   * deployment controller neither adopts nor scales it; only the garbage collector acts.
   */
  async function ownedTree(name: string): Promise<void> {
    const owner = await apps.createNamespacedDeployment({ namespace, body: deployment(name) });
    const replicaSet = await apps.createNamespacedReplicaSet({
      namespace,
      body: idleReplicaSet(`${name}-rs`, [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name,
          uid: owner.metadata?.uid ?? '',
          blockOwnerDeletion: true,
        },
      ]),
    });
    // The pod's labels are not the ReplicaSet's and its reference is no controller reference,
    // so a real replicaset controller neither counts, adopts nor deletes it.
    const podLabels = { app: `${name}-pod` };
    await core.createNamespacedPod({
      namespace,
      body: {
        ...pod(`${name}-pod`, podLabels),
        metadata: {
          name: `${name}-pod`,
          labels: podLabels,
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: `${name}-rs`,
              uid: replicaSet.metadata?.uid ?? '',
              blockOwnerDeletion: true,
            },
          ],
        },
      },
    });
    await collectorCaughtUp(name);
  }

  /**
   * A real garbage collector acts on what its own informers have seen: a dependent it has not
   * observed yet is not orphaned with its owner but collected later as dangling. So wait until it
   * has collected a ReplicaSet and a Pod created after the tree, each naming an owner that never
   * existed; one watch stream per resource delivers in order, so by then it knows the tree.
   */
  async function collectorCaughtUp(name: string): Promise<void> {
    const ghost = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: `${name}-ghost`,
      uid: randomUUID(),
    };
    await apps.createNamespacedReplicaSet({
      namespace,
      body: idleReplicaSet(`${name}-canary`, [ghost]),
    });
    const labels = { app: `${name}-canary` };
    await core.createNamespacedPod({
      namespace,
      body: {
        ...pod(`${name}-canary`, labels),
        metadata: { name: `${name}-canary`, labels, ownerReferences: [ghost] },
      },
    });
    await eventually(async () =>
      !(await exists(apps.readNamespacedReplicaSet({ name: `${name}-canary`, namespace }))) &&
      !(await exists(core.readNamespacedPod({ name: `${name}-canary`, namespace })))
        ? true
        : undefined,
    );
  }

  async function exists(read: Promise<unknown>): Promise<boolean> {
    try {
      await read;
      return true;
    } catch (error) {
      if ((await expectStatus(Promise.reject(error))).code === 404) return false;
      throw error;
    }
  }

  it('cascades a background delete from Deployment to ReplicaSets to Pods', async () => {
    await ownedTree('cascade');
    await apps.deleteNamespacedDeployment({
      name: 'cascade',
      namespace,
      propagationPolicy: 'Background',
    });
    await eventually(async () =>
      !(await exists(core.readNamespacedPod({ name: 'cascade-pod', namespace })))
        ? true
        : undefined,
    );
    expect(await exists(apps.readNamespacedReplicaSet({ name: 'cascade-rs', namespace }))).toBe(
      false,
    );
  });

  it('orphans dependents by removing their ownerReferences', async () => {
    await ownedTree('orphan');
    await apps.deleteNamespacedDeployment({
      name: 'orphan',
      namespace,
      propagationPolicy: 'Orphan',
    });
    // A real garbage collector orphans asynchronously (through the "orphan" finalizer).
    const replicaSet = await eventually(async () => {
      const current = await apps.readNamespacedReplicaSet({ name: 'orphan-rs', namespace });
      return (current.metadata?.ownerReferences ?? []).length === 0 ? current : undefined;
    });
    expect(replicaSet.metadata?.name).toBe('orphan-rs');
    expect(await exists(core.readNamespacedPod({ name: 'orphan-pod', namespace }))).toBe(true);
  });

  it('deletes dependents before the owner in the foreground', async () => {
    await ownedTree('fore');
    const pending = await apps.deleteNamespacedDeployment({
      name: 'fore',
      namespace,
      propagationPolicy: 'Foreground',
    });
    expect(pending).toBeTruthy();
    await eventually(async () =>
      !(await exists(apps.readNamespacedDeployment({ name: 'fore', namespace })))
        ? true
        : undefined,
    );
    expect(await exists(apps.readNamespacedReplicaSet({ name: 'fore-rs', namespace }))).toBe(false);
    expect(await exists(core.readNamespacedPod({ name: 'fore-pod', namespace }))).toBe(false);
  });

  it('collects a dependent created after its owner went, and keeps one whose owner lives', async () => {
    const gone = await apps.createNamespacedDeployment({ namespace, body: deployment('went') });
    await apps.deleteNamespacedDeployment({ name: 'went', namespace });
    const live = await apps.createNamespacedDeployment({ namespace, body: deployment('lives') });
    // What a controller acting on a stale cache does: create for an owner that is already gone.
    for (const [name, owner] of [
      ['late', gone],
      ['kept', live],
    ] as const) {
      await core.createNamespacedPod({
        namespace,
        body: {
          ...pod(`${name}-pod`, { app: `${name}-pod` }),
          metadata: {
            name: `${name}-pod`,
            labels: { app: `${name}-pod` },
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                name: owner.metadata?.name ?? '',
                uid: owner.metadata?.uid ?? '',
              },
            ],
          },
        },
      });
    }
    await eventually(async () =>
      !(await exists(core.readNamespacedPod({ name: 'late-pod', namespace }))) ? true : undefined,
    );
    expect(await exists(core.readNamespacedPod({ name: 'kept-pod', namespace }))).toBe(true);
  });

  it('deletes a collection of pods by label', async () => {
    const bulk = await cluster.createNamespace('bulk');
    for (const name of ['k1', 'k2', 'k3'])
      await core.createNamespacedPod({
        namespace: bulk,
        body: pod(name, { keep: name === 'k3' ? 'yes' : 'no' }),
      });
    await core.deleteCollectionNamespacedPod({ namespace: bulk, labelSelector: 'keep=no' });
    const left = await core.listNamespacedPod({ namespace: bulk });
    expect(left.items.map((item) => item.metadata?.name)).toEqual(['k3']);
  });
});
