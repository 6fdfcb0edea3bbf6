import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { isNotFound, mergePatch, splitKey } from '@mgpu/kube-client';
import { isTerminalPod } from '@mgpu/shared';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers, podFromTemplate } from './controller.js';
import { BURST_REPLICAS, createBurst } from './slow-start.js';
import { patchStatusIfChanged } from './status-patch.js';

/** Expected creations/deletions not seen within this long are forgotten (the watch lost them). */
const EXPECTATION_TTL_MS = 10_000;
export const isPodReady = (pod: V1Pod) =>
  pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  ) ?? false;

const created = (object: { metadata?: { creationTimestamp?: Date | string } }) =>
  new Date(object.metadata?.creationTimestamp ?? 0).getTime();

interface Expectations {
  adds: Map<string, number>;
  deletes: Map<string, number>;
}

/**
 * The ReplicaSet controller, as kube-controller-manager's: keeps `spec.replicas` pods of the
 * template (created in slow-start batches of at most BURST_REPLICAS a sync, surplus deleted
 * unscheduled-first, then pending, unready, newest) and the set's status. Level-triggered:
 * every reconcile reads the caches and converges; expectations stop it from creating twice
 * while its own creations are still on their way through the watch.
 */
export async function startReplicaSetController(
  kubeConfig: KubeConfig,
  options: StartControllerOptions = {},
): Promise<RunningController> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;
  const expectations = new Map<string, Expectations>();
  let stopped = false;
  const controller = new Controller('replicaset controller', { workers: 4, ...controllerOptions });

  const expectationsOf = (key: string) => {
    let entry = expectations.get(key);
    if (!entry) {
      entry = { adds: new Map(), deletes: new Map() };
      expectations.set(key, entry);
    }
    return entry;
  };

  const pods = controller.owned(informers.pods(), 'ReplicaSet');
  const replicaSets = controller.watch(informers.replicaSets());

  async function reconcileReplicaSet(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const rs = replicaSets.get(name, namespace);
    if (!rs || rs.metadata?.deletionTimestamp) {
      // Its pods go through ownerReference garbage collection in the API server.
      expectations.delete(key);
      return;
    }
    const uid = rs.metadata?.uid;
    const owned = uid === undefined ? [] : pods.controlledBy(uid);
    const active = owned.filter((pod) => !isTerminalPod(pod) && !pod.metadata?.deletionTimestamp);
    const activeNames = new Set(active.map((pod) => pod.metadata?.name ?? ''));
    const ownedNames = new Set(owned.map((pod) => pod.metadata?.name ?? ''));
    const expected = expectationsOf(key);
    const now = Date.now();
    for (const [pod, at] of expected.adds) {
      if (ownedNames.has(pod) || now - at > EXPECTATION_TTL_MS) expected.adds.delete(pod);
    }
    for (const [pod, at] of expected.deletes) {
      if (!activeNames.has(pod) || now - at > EXPECTATION_TTL_MS) expected.deletes.delete(pod);
    }
    const count = active.length + expected.adds.size - expected.deletes.size;
    const desired = rs.spec?.replicas ?? 1;

    if (count < desired) {
      const template = rs.spec?.template;
      const createOne = async () => {
        const owner = {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name,
          uid: rs.metadata?.uid ?? '',
        };
        const response = await clients.core.createNamespacedPod({
          namespace,
          body: podFromTemplate(template, owner, namespace),
        });
        const podName = response.metadata?.name;
        if (podName && !pods?.get(podName, namespace)) expected.adds.set(podName, Date.now());
      };
      // Slow start, as the ReplicaSet controller does: a broken template fails one batch, not
      // all; at most BURST_REPLICAS per sync, so replicas: 1e9 cannot starve the API server.
      if (await createBurst(desired - count, createOne, () => stopped)) controller.addAfter(key, 0);
    } else if (count > desired) {
      const rank = (pod: V1Pod) =>
        !pod.spec?.nodeName ? 0 : pod.status?.phase === 'Pending' ? 1 : !isPodReady(pod) ? 2 : 3;
      const victims = active
        .filter((pod) => !expected.deletes.has(pod.metadata?.name ?? ''))
        .sort((a, b) => rank(a) - rank(b) || created(b) - created(a))
        .slice(0, Math.min(count - desired, BURST_REPLICAS));
      await Promise.all(
        victims.map(async (pod) => {
          const podName = pod.metadata?.name ?? '';
          expected.deletes.set(podName, Date.now());
          try {
            await clients.core.deleteNamespacedPod({ name: podName, namespace });
          } catch (error) {
            if (!isNotFound(error)) {
              expected.deletes.delete(podName);
              throw error;
            }
          }
        }),
      );
      if (count - desired > BURST_REPLICAS && !stopped) controller.addAfter(key, 0);
    }

    const ready = active.filter(isPodReady).length;
    const status = {
      replicas: active.length,
      fullyLabeledReplicas: active.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata?.generation ?? 0,
    };
    await patchStatusIfChanged({
      current: rs.status,
      desired: status,
      // A set without a replica count yet gets its first status even when every field is 0.
      changed: rs.status?.replicas === undefined,
      write: (body) =>
        clients.apps.patchNamespacedReplicaSetStatus({ name, namespace, body }, mergePatch()),
    });
  }

  await controller.run(reconcileReplicaSet);
  return {
    async stop() {
      stopped = true;
      await controller.stop();
    },
    idle: () => controller.idle(),
  };
}
