import type {
  KubeConfig,
  V1Deployment,
  V1DeploymentCondition,
  V1Pod,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import {
  isConflict,
  isNotFound,
  type KubeClients,
  makeClients,
  mergePatch,
  objectKey,
  splitKey,
  startInformer,
  type WatchedCache,
} from '@mgpu/kube-client';
import { controllerOf, isTerminalPod, POD_TEMPLATE_HASH_LABEL } from '@mgpu/shared';
import type { RunningController } from './scheduler.js';
import { WorkQueue } from './work-queue.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Expected creations/deletions not seen within this long are forgotten (the watch lost them). */
const EXPECTATION_TTL_MS = 10_000;
/** kube-controller-manager's `BurstReplicas`: at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 500;
/** kube-controller-manager's `SlowStartInitialBatchSize`. */
const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** The batch sizes slow start tries for `count` calls: 1, 2, 4, … with the last one cut short. */
export function slowStartBatchSizes(count: number, initialBatchSize = 1): number[] {
  const sizes: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, initialBatchSize); size > 0; ) {
    sizes.push(size);
    remaining -= size;
    size = Math.min(2 * size, remaining);
  }
  return sizes;
}

/**
 * `slowStartBatch` from the ReplicaSet controller: calls `fn` `count` times in batches of
 * 1, 2, 4, …, stops after the first batch with a failure, and returns how many calls succeeded
 * (and the first error). Between batches it yields to the event loop so the API server it runs
 * next to keeps answering; `stopped` ends it early once the controller stops.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<{ successes: number; error?: unknown }> {
  let successes = 0;
  for (const size of slowStartBatchSizes(count, initialBatchSize)) {
    if (stopped()) break;
    const results = await Promise.allSettled(Array.from({ length: size }, fn));
    successes += results.filter((result) => result.status === 'fulfilled').length;
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) return { successes, error: failed.reason };
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { successes };
}

/** JSON with sorted keys and no undefined: the same template always hashes the same. */
function stableJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The `pod-template-hash` of a pod template: FNV-1a of the template, written with the
 * vowel-free alphabet Kubernetes uses so the name never spells a word.
 */
export function podTemplateHash(template: unknown): string {
  const copy = JSON.parse(stableJson(template)) as { metadata?: Record<string, unknown> };
  if (copy.metadata) delete copy.metadata.creationTimestamp;
  let hash = 0x811c9dc5;
  for (const char of stableJson(copy)) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return [...String(hash)]
    .map((digit) => SAFE_ALPHABET[Number(digit) % SAFE_ALPHABET.length])
    .join('');
}

/** maxSurge / maxUnavailable: an integer or a percent of the desired replicas. */
function resolveIntOrPercent(
  value: unknown,
  total: number,
  fallback: string,
  roundUp: boolean,
): number {
  const raw = value ?? fallback;
  if (typeof raw === 'number') return Math.max(0, Math.floor(raw));
  const match = /^(\d+)%$/.exec(String(raw));
  if (match?.[1]) {
    const exact = (Number(match[1]) * total) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  }
  const number = Number(raw);
  return Number.isFinite(number) ? Math.max(0, Math.floor(number)) : 0;
}

const isPodReady = (pod: V1Pod) =>
  pod.status?.conditions?.some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  ) ?? false;

const revisionOf = (rs: V1ReplicaSet) =>
  Number(rs.metadata?.annotations?.[REVISION_ANNOTATION] ?? 0) || 0;

const created = (object: { metadata?: { creationTimestamp?: Date | string } }) =>
  new Date(object.metadata?.creationTimestamp ?? 0).getTime();

interface Expectations {
  adds: Map<string, number>;
  deletes: Map<string, number>;
}

/**
 * The deployment controller, as Kubernetes' own: Deployment → ReplicaSet
 * (`<deployment>-<pod-template-hash>`) → Pods, scaling, rolling updates within maxSurge and
 * maxUnavailable (or Recreate), and the status of both. Level-triggered: every reconcile reads
 * the caches and converges; expectations stop it from creating twice while its own
 * creations are still on their way through the watch.
 */
export async function startDeploymentController(
  kubeConfig: KubeConfig,
  options: { log?: (message: string) => void } = {},
): Promise<RunningController> {
  const clients: KubeClients = makeClients(kubeConfig);
  const log = options.log ?? (() => undefined);
  const expectations = new Map<string, Expectations>();
  let stopped = false;

  let deployments: WatchedCache<V1Deployment> | undefined;
  let replicaSets: WatchedCache<V1ReplicaSet> | undefined;
  let pods: WatchedCache<V1Pod> | undefined;

  const expectationsOf = (key: string) => {
    let entry = expectations.get(key);
    if (!entry) {
      entry = { adds: new Map(), deletes: new Map() };
      expectations.set(key, entry);
    }
    return entry;
  };

  async function reconcileReplicaSet(key: string): Promise<void> {
    if (!replicaSets || !pods) {
      rsQueue.addAfter(key, 50);
      return;
    }
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
        const response = await clients.core.createNamespacedPod({
          namespace,
          body: {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              generateName: `${name}-`,
              namespace,
              labels: { ...template?.metadata?.labels },
              ...(template?.metadata?.annotations
                ? { annotations: { ...template.metadata.annotations } }
                : {}),
              ownerReferences: [
                {
                  apiVersion: 'apps/v1',
                  kind: 'ReplicaSet',
                  name,
                  uid: rs.metadata?.uid ?? '',
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            spec: template?.spec ?? { containers: [] },
          },
        });
        const podName = response.metadata?.name;
        if (podName && !pods?.get(podName, namespace)) expected.adds.set(podName, Date.now());
      };
      const missing = desired - count;
      // Slow start, as the ReplicaSet controller does: a broken template fails one batch, not
      // all; at most BURST_REPLICAS per sync, so replicas: 1e9 cannot starve the API server.
      const { error } = await slowStartBatch(
        Math.min(missing, BURST_REPLICAS),
        SLOW_START_INITIAL_BATCH_SIZE,
        createOne,
        () => stopped,
      );
      if (error !== undefined) throw error;
      if (missing > BURST_REPLICAS && !stopped) rsQueue.addAfter(key, 0);
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
      if (count - desired > BURST_REPLICAS && !stopped) rsQueue.addAfter(key, 0);
    }

    const ready = active.filter(isPodReady).length;
    const status = {
      replicas: active.length,
      fullyLabeledReplicas: active.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata?.generation ?? 0,
    };
    const current = rs.status;
    if (
      current?.replicas !== status.replicas ||
      (current.readyReplicas ?? 0) !== status.readyReplicas ||
      (current.availableReplicas ?? 0) !== status.availableReplicas ||
      (current.fullyLabeledReplicas ?? 0) !== status.fullyLabeledReplicas ||
      (current.observedGeneration ?? 0) !== status.observedGeneration
    ) {
      try {
        await clients.apps.patchNamespacedReplicaSetStatus(
          { name, namespace, body: { status } },
          mergePatch(),
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  async function scaleReplicaSet(
    rs: V1ReplicaSet,
    replicas: number,
    deployment: V1Deployment,
    maxSurge: number,
  ) {
    if ((rs.spec?.replicas ?? 1) === replicas) return;
    const desired = deployment.spec?.replicas ?? 1;
    await clients.apps.patchNamespacedReplicaSet(
      {
        name: rs.metadata?.name ?? '',
        namespace: rs.metadata?.namespace ?? 'default',
        body: {
          metadata: {
            annotations: {
              [DESIRED_REPLICAS_ANNOTATION]: String(desired),
              [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge),
            },
          },
          spec: { replicas },
        },
      },
      mergePatch(),
    );
  }

  async function reconcileDeployment(key: string): Promise<void> {
    if (!deployments || !replicaSets) {
      deploymentQueue.addAfter(key, 50);
      return;
    }
    const { namespace, name } = splitKey(key);
    const deployment = deployments.get(name, namespace);
    if (!deployment || deployment.metadata?.deletionTimestamp) return;
    const uid = deployment.metadata?.uid;
    const owned = uid === undefined ? [] : replicaSets.controlledBy(uid);
    const template = deployment.spec?.template;
    const hash = podTemplateHash(template);
    let newRS = owned.find((rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === hash);
    const old = owned.filter((rs) => rs !== newRS).sort((a, b) => revisionOf(a) - revisionOf(b));
    const desired = deployment.spec?.replicas ?? 1;
    const recreate = deployment.spec?.strategy?.type === 'Recreate';
    const rolling = deployment.spec?.strategy?.rollingUpdate;
    let maxSurge = recreate ? 0 : resolveIntOrPercent(rolling?.maxSurge, desired, '25%', true);
    let maxUnavailable = recreate
      ? desired
      : resolveIntOrPercent(rolling?.maxUnavailable, desired, '25%', false);
    if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    if (recreate) maxSurge = 0;
    const oldReplicas = old.reduce((sum, rs) => sum + (rs.spec?.replicas ?? 0), 0);
    const oldActive = old.reduce((sum, rs) => sum + (rs.status?.replicas ?? 0), 0);

    if (!deployment.spec?.paused) {
      if (newRS === undefined) {
        const revision = Math.max(0, ...old.map(revisionOf)) + 1;
        const initial = recreate
          ? oldActive + oldReplicas > 0
            ? 0
            : desired
          : oldReplicas === 0
            ? desired
            : Math.max(0, Math.min(desired, desired + maxSurge - oldReplicas));
        const labels = { ...template?.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
        const selector = deployment.spec?.selector ?? {};
        try {
          newRS = await clients.apps.createNamespacedReplicaSet({
            namespace,
            body: {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              metadata: {
                name: `${name}-${hash}`,
                namespace,
                labels,
                annotations: {
                  [REVISION_ANNOTATION]: String(revision),
                  [DESIRED_REPLICAS_ANNOTATION]: String(desired),
                  [MAX_REPLICAS_ANNOTATION]: String(desired + maxSurge),
                },
                ownerReferences: [
                  {
                    apiVersion: 'apps/v1',
                    kind: 'Deployment',
                    name,
                    uid: uid ?? '',
                    controller: true,
                    blockOwnerDeletion: true,
                  },
                ],
              },
              spec: {
                replicas: initial,
                minReadySeconds: deployment.spec?.minReadySeconds ?? 0,
                selector: {
                  ...selector,
                  matchLabels: { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash },
                },
                template: { ...template, metadata: { ...template?.metadata, labels } },
              },
            },
          });
        } catch (error) {
          // Our own earlier creation, not yet in the cache: the next pass sees it.
          if (isConflict(error))
            throw new Error(`replica set ${name}-${hash} exists but is not cached yet`);
          throw error;
        }
      } else if (oldReplicas === 0) {
        await scaleReplicaSet(newRS, desired, deployment, maxSurge);
      } else if (recreate) {
        for (const rs of old) await scaleReplicaSet(rs, 0, deployment, maxSurge);
        if (oldActive === 0) await scaleReplicaSet(newRS, desired, deployment, maxSurge);
      } else {
        const newReplicas = newRS.spec?.replicas ?? 0;
        const total = newReplicas + oldReplicas;
        if (newReplicas > desired) {
          await scaleReplicaSet(newRS, desired, deployment, maxSurge);
        } else if (newReplicas < desired && total < desired + maxSurge) {
          await scaleReplicaSet(
            newRS,
            Math.min(desired, newReplicas + desired + maxSurge - total),
            deployment,
            maxSurge,
          );
        }
        // Scale old sets down only as far as availability allows, as Kubernetes does: unhealthy
        // old replicas first (within what the spec counts allow), then healthy ones down to
        // minAvailable. An RS never counts more available pods than its spec: its status may
        // still describe pods it was just told to drop.
        const minAvailable = desired - maxUnavailable;
        const availableOf = (rs: V1ReplicaSet) =>
          Math.min(rs.spec?.replicas ?? 0, rs.status?.availableReplicas ?? 0);
        const newUnavailable = Math.max(0, (newRS.spec?.replicas ?? 0) - availableOf(newRS));
        let allPods = owned.reduce((sum, rs) => sum + (rs.spec?.replicas ?? 0), 0);
        let cleanup = Math.max(0, allPods - minAvailable - newUnavailable);
        const targets = new Map(old.map((rs) => [rs, rs.spec?.replicas ?? 0]));
        for (const rs of old) {
          const replicas = targets.get(rs) ?? 0;
          const unhealthy = Math.max(0, replicas - availableOf(rs));
          const cut = Math.min(unhealthy, cleanup);
          if (cut > 0) {
            targets.set(rs, replicas - cut);
            cleanup -= cut;
            allPods -= cut;
          }
        }
        let available = owned.reduce((sum, rs) => sum + availableOf(rs), 0);
        for (const rs of old) {
          const replicas = targets.get(rs) ?? 0;
          const cut = Math.max(0, Math.min(replicas, availableOf(rs), available - minAvailable));
          if (cut > 0) {
            targets.set(rs, replicas - cut);
            available -= cut;
          }
        }
        for (const [rs, target] of targets) {
          if (target !== (rs.spec?.replicas ?? 0))
            await scaleReplicaSet(rs, target, deployment, maxSurge);
        }
      }
      // revisionHistoryLimit: old sets scaled to zero beyond the limit go.
      const limit = deployment.spec?.revisionHistoryLimit ?? 10;
      const idle = old.filter(
        (rs) => (rs.spec?.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0,
      );
      for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
        try {
          await clients.apps.deleteNamespacedReplicaSet({
            name: rs.metadata?.name ?? '',
            namespace,
          });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
    }

    const all = newRS ? [newRS, ...old] : old;
    const sum = (read: (rs: V1ReplicaSet) => number | undefined) =>
      all.reduce((total, rs) => total + (read(rs) ?? 0), 0);
    const replicas = sum((rs) => rs.status?.replicas);
    const readyReplicas = sum((rs) => rs.status?.readyReplicas);
    const availableReplicas = sum((rs) => rs.status?.availableReplicas);
    const updatedReplicas = newRS?.status?.replicas ?? 0;
    const newRSName = newRS?.metadata?.name ?? `${name}-${hash}`;
    const complete =
      updatedReplicas === desired &&
      replicas === desired &&
      availableReplicas === desired &&
      (newRS?.status?.observedGeneration ?? 0) >= (newRS?.metadata?.generation ?? 0);
    const now = new Date();
    const previous = (type: string) =>
      deployment.status?.conditions?.find((condition) => condition.type === type);
    const condition = (
      type: string,
      status: string,
      reason: string,
      message: string,
    ): V1DeploymentCondition => {
      const before = previous(type);
      const same = before?.status === status;
      const unchanged = same && before?.reason === reason && before?.message === message;
      return {
        type,
        status,
        reason,
        message,
        lastUpdateTime: unchanged ? (before?.lastUpdateTime ?? now) : now,
        lastTransitionTime: same ? (before?.lastTransitionTime ?? now) : now,
      };
    };
    const minimumAvailable = availableReplicas >= desired - maxUnavailable;
    const conditions = [
      minimumAvailable
        ? condition(
            'Available',
            'True',
            'MinimumReplicasAvailable',
            'Deployment has minimum availability.',
          )
        : condition(
            'Available',
            'False',
            'MinimumReplicasUnavailable',
            'Deployment does not have minimum availability.',
          ),
      complete
        ? condition(
            'Progressing',
            'True',
            'NewReplicaSetAvailable',
            `ReplicaSet "${newRSName}" has successfully progressed.`,
          )
        : condition(
            'Progressing',
            'True',
            'ReplicaSetUpdated',
            `ReplicaSet "${newRSName}" is progressing.`,
          ),
    ];
    const status = {
      observedGeneration: deployment.metadata?.generation ?? 0,
      replicas,
      updatedReplicas,
      readyReplicas,
      availableReplicas,
      unavailableReplicas: Math.max(0, replicas - availableReplicas, desired - availableReplicas),
      conditions,
    };
    const current = deployment.status;
    const conditionKey = (list: V1DeploymentCondition[] | undefined) =>
      JSON.stringify(
        (list ?? []).map((item) => [item.type, item.status, item.reason, item.message]),
      );
    const changed =
      (current?.observedGeneration ?? 0) !== status.observedGeneration ||
      (current?.replicas ?? 0) !== status.replicas ||
      (current?.updatedReplicas ?? 0) !== status.updatedReplicas ||
      (current?.readyReplicas ?? 0) !== status.readyReplicas ||
      (current?.availableReplicas ?? 0) !== status.availableReplicas ||
      (current?.unavailableReplicas ?? 0) !== status.unavailableReplicas ||
      conditionKey(current?.conditions) !== conditionKey(conditions);
    if (changed) {
      try {
        await clients.apps.patchNamespacedDeploymentStatus(
          { name, namespace, body: { status } },
          mergePatch(),
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    const revision = newRS?.metadata?.annotations?.[REVISION_ANNOTATION];
    if (
      revision !== undefined &&
      deployment.metadata?.annotations?.[REVISION_ANNOTATION] !== revision
    ) {
      try {
        await clients.apps.patchNamespacedDeployment(
          {
            name,
            namespace,
            body: { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } },
          },
          mergePatch(),
        );
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  const deploymentQueue = new WorkQueue(reconcileDeployment, {
    workers: 2,
    onError: (key, error) => log(`deployment controller: ${key}: ${String(error)}`),
  });
  const rsQueue = new WorkQueue(reconcileReplicaSet, {
    workers: 4,
    onError: (key, error) => log(`replicaset controller: ${key}: ${String(error)}`),
  });

  const enqueueOwnerDeployment = (rs: V1ReplicaSet) => {
    const owner = controllerOf(rs);
    if (owner?.kind === 'Deployment')
      deploymentQueue.add(`${rs.metadata?.namespace ?? 'default'}/${owner.name}`);
  };
  const onReplicaSet = (rs: V1ReplicaSet) => {
    rsQueue.add(objectKey(rs));
    enqueueOwnerDeployment(rs);
  };
  const onPod = (pod: V1Pod) => {
    const owner = controllerOf(pod);
    if (owner?.kind === 'ReplicaSet')
      rsQueue.add(`${pod.metadata?.namespace ?? 'default'}/${owner.name}`);
  };
  const onDeployment = (deployment: V1Deployment) => deploymentQueue.add(objectKey(deployment));

  pods = await startInformer<V1Pod>(
    kubeConfig,
    '/api/v1/pods',
    () => clients.core.listPodForAllNamespaces(),
    {
      add: onPod,
      update: onPod,
      delete: onPod,
    },
    { indexControllers: true },
  );
  replicaSets = await startInformer<V1ReplicaSet>(
    kubeConfig,
    '/apis/apps/v1/replicasets',
    () => clients.apps.listReplicaSetForAllNamespaces(),
    { add: onReplicaSet, update: onReplicaSet, delete: onReplicaSet },
    { indexControllers: true },
  );
  deployments = await startInformer<V1Deployment>(
    kubeConfig,
    '/apis/apps/v1/deployments',
    () => clients.apps.listDeploymentForAllNamespaces(),
    { add: onDeployment, update: onDeployment, delete: onDeployment },
  );

  return {
    async stop() {
      stopped = true;
      deploymentQueue.stop();
      rsQueue.stop();
      await Promise.allSettled([pods?.stop(), replicaSets?.stop(), deployments?.stop()]);
    },
    async idle() {
      await Promise.all([deploymentQueue.idle(), rsQueue.idle()]);
    },
  };
}
