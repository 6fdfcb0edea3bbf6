import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound, mergePatch, splitKey } from '@mgpu/kube-client';
import { isTerminalPod } from '@mgpu/shared';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers, podFromTemplate } from './controller.js';
import { podTemplateHash } from './deployment-controller.js';
import { isPodReady } from './replicaset-controller.js';
import { keepRevision, pruneRevisions } from './statefulset-revisions.js';
import { patchStatusIfChanged } from './status-patch.js';

export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/** `<set>-<ordinal>` → ordinal, or undefined for a pod that is not one of the set's. */
function ordinalOf(set: string, pod: V1Pod): number | undefined {
  const name = pod.metadata?.name ?? '';
  if (!name.startsWith(`${set}-`)) return undefined;
  const text = name.slice(set.length + 1);
  return /^(0|[1-9]\d*)$/.test(text) ? Number(text) : undefined;
}

/**
 * The StatefulSet controller, in the shape of the deployment controller: pods `<set>-0 … -n-1`
 * with stable names, created in order (the next one once all before it are Ready, the
 * `OrderedReady` default; `Parallel` creates them at once), removed from the highest ordinal
 * down, and a rolling update that replaces one pod at a time from the highest ordinal while
 * the others are Ready. The revision is the pod template's hash in `controller-revision-hash`
 * (`<set>-<hash>`), kept as a ControllerRevision as kube-controller-manager keeps it
 * (`statefulset-revisions.ts`), so a rollback finds it. Level-triggered: each pass reads the
 * caches and takes the next step.
 */
export async function startStatefulSetController(
  kubeConfig: KubeConfig,
  options: StartControllerOptions = {},
): Promise<RunningController> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;

  const controller = new Controller('statefulset controller', { workers: 2, ...controllerOptions });
  const pods = controller.owned(informers.pods(), 'StatefulSet');
  const sets = controller.watch(informers.statefulSets());
  const revisions = controller.owned(informers.controllerRevisions(), 'StatefulSet');

  async function reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const set = sets.get(name, namespace);
    if (!set || set.metadata?.deletionTimestamp) return; // its pods go through garbage collection
    const uid = set.metadata?.uid ?? '';
    const desired = set.spec?.replicas ?? 1;
    const revision = `${name}-${podTemplateHash(set.spec?.template)}`;
    const history = revisions.controlledBy(uid);
    await keepRevision(clients, set, revision, history);
    const owned = pods.controlledBy(uid).filter((pod) => !isTerminalPod(pod));
    const byOrdinal = new Map<number, V1Pod>();
    for (const pod of owned) {
      const ordinal = ordinalOf(name, pod);
      if (ordinal !== undefined) byOrdinal.set(ordinal, pod);
    }
    const terminating = owned.some((pod) => pod.metadata?.deletionTimestamp);
    const parallel = set.spec?.podManagementPolicy === 'Parallel';

    const createPod = async (ordinal: number) => {
      const template = set.spec?.template;
      const podName = `${name}-${ordinal}`;
      try {
        // `<set>-<ordinal>`, not a generated name: the identity a StatefulSet keeps.
        const { generateName: _generated, ...metadata } =
          podFromTemplate(
            template,
            { apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid },
            namespace,
          ).metadata ?? {};
        await clients.core.createNamespacedPod({
          namespace,
          body: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              ...metadata,
              name: podName,
              labels: {
                ...metadata.labels,
                [CONTROLLER_REVISION_HASH_LABEL]: revision,
                [STATEFULSET_POD_NAME_LABEL]: podName,
                [POD_INDEX_LABEL]: String(ordinal),
              },
            },
            spec: {
              ...(template?.spec ?? { containers: [] }),
              hostname: podName,
              ...(set.spec?.serviceName ? { subdomain: set.spec.serviceName } : {}),
            },
          },
        });
      } catch (error) {
        // The pod of that name is still going (a replaced revision): its deletion requeues us.
        if (!isConflict(error)) throw error;
      }
    };
    const deletePod = async (pod: V1Pod) => {
      try {
        await clients.core.deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    };

    // Scale up: the missing ordinals, in order; OrderedReady waits for each to be Ready.
    for (let ordinal = 0; ordinal < desired; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (pod === undefined) {
        await createPod(ordinal);
        if (!parallel) break;
      } else if (!parallel && (!isPodReady(pod) || pod.metadata?.deletionTimestamp)) break;
    }
    // Scale down: from the highest ordinal, one at a time unless Parallel.
    const surplus = [...byOrdinal.entries()]
      .filter(([ordinal, pod]) => ordinal >= desired && !pod.metadata?.deletionTimestamp)
      .sort(([a], [b]) => b - a);
    for (const [, pod] of parallel ? surplus : surplus.slice(0, terminating ? 0 : 1))
      await deletePod(pod);
    // Rolling update: once every wanted pod is there and Ready, replace the highest outdated one.
    const wanted = [...byOrdinal.entries()].filter(([ordinal]) => ordinal < desired);
    const allReady =
      wanted.length === desired &&
      wanted.every(([, pod]) => isPodReady(pod) && !pod.metadata?.deletionTimestamp);
    if (set.spec?.updateStrategy?.type !== 'OnDelete' && allReady && !terminating) {
      const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
      const outdated = wanted
        .filter(
          ([ordinal, pod]) =>
            ordinal >= partition &&
            pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== revision,
        )
        .sort(([a], [b]) => b - a)[0];
      if (outdated) await deletePod(outdated[1]);
    }

    const active = owned.filter((pod) => !pod.metadata?.deletionTimestamp);
    const ready = active.filter(isPodReady).length;
    const updated = active.filter(
      (pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === revision,
    ).length;
    const status = {
      observedGeneration: set.metadata?.generation ?? 0,
      replicas: active.length,
      readyReplicas: ready,
      availableReplicas: ready,
      currentReplicas: updated,
      updatedReplicas: updated,
      currentRevision:
        updated === active.length ? revision : (set.status?.currentRevision ?? revision),
      updateRevision: revision,
    };
    await pruneRevisions(clients, set, history, [
      revision,
      status.currentRevision,
      ...active.map((pod) => pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]),
    ]);
    await patchStatusIfChanged({
      current: set.status,
      desired: status,
      write: (body) =>
        clients.apps.patchNamespacedStatefulSetStatus({ name, namespace, body }, mergePatch()),
    });
  }

  await controller.run(reconcile);
  return controller;
}
