import type {
  KubeConfig,
  V1Deployment,
  V1DeploymentCondition,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import { isConflict, isNotFound, mergePatch, splitKey } from '@mgpu/kube-client';
import {
  newReplicaSetReplicas,
  POD_TEMPLATE_HASH_LABEL,
  DEPLOYMENT_REVISION_ANNOTATION as REVISION_ANNOTATION,
  type ReplicaSetCounts,
  reconcileNewReplicaSet,
  reconcileOldReplicaSets,
  resolveFenceposts,
} from '@mgpu/shared';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers } from './controller.js';
import { patchStatusIfChanged } from './status-patch.js';

const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
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

/** What the rolling-update arithmetic reads of a ReplicaSet. */
const countsOf = (rs: V1ReplicaSet): ReplicaSetCounts => ({
  replicas: rs.spec?.replicas ?? 0,
  availableReplicas: rs.status?.availableReplicas ?? 0,
});

const revisionOf = (rs: V1ReplicaSet) =>
  Number(rs.metadata?.annotations?.[REVISION_ANNOTATION] ?? 0) || 0;

/**
 * The deployment controller, as Kubernetes' own: Deployment → ReplicaSet
 * (`<deployment>-<pod-template-hash>`) → Pods, scaling, rolling updates within maxSurge and
 * maxUnavailable (shared `rolling-update.ts`) or Recreate, and the Deployment's status; the
 * ReplicaSet controller (`replicaset-controller.ts`) keeps each set's pods. Level-triggered:
 * every reconcile reads the caches and converges.
 */
export async function startDeploymentController(
  kubeConfig: KubeConfig,
  options: StartControllerOptions = {},
): Promise<RunningController> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;
  const controller = new Controller('deployment controller', { workers: 2, ...controllerOptions });
  const replicaSets = controller.owned(informers.replicaSets(), 'Deployment');
  const deployments = controller.watch(informers.deployments());

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
    // Recreate: no surge, and every replica may be unavailable while the old ones go.
    const { maxSurge, maxUnavailable } = recreate
      ? resolveFenceposts(0, desired, desired)
      : resolveFenceposts(rolling?.maxSurge, rolling?.maxUnavailable, desired);
    const oldCounts = old.map(countsOf);
    const oldReplicas = oldCounts.reduce((sum, rs) => sum + rs.replicas, 0);
    const oldActive = old.reduce((sum, rs) => sum + (rs.status?.replicas ?? 0), 0);

    if (!deployment.spec?.paused) {
      // An older set whose template is the Deployment's again (a rollback) is the new one: it
      // takes the next revision number, as upstream's SetNewReplicaSetAnnotations gives it.
      const topOld = Math.max(0, ...old.map(revisionOf));
      if (newRS !== undefined && revisionOf(newRS) <= topOld)
        newRS = await clients.apps.patchNamespacedReplicaSet(
          {
            name: newRS.metadata?.name ?? '',
            namespace,
            body: { metadata: { annotations: { [REVISION_ANNOTATION]: String(topOld + 1) } } },
          },
          mergePatch(),
        );
      if (newRS === undefined) {
        const revision = Math.max(0, ...old.map(revisionOf)) + 1;
        const initial = recreate
          ? oldActive + oldReplicas > 0
            ? 0
            : desired
          : newReplicaSetReplicas(desired, maxSurge, oldCounts, {
              replicas: 0,
              availableReplicas: 0,
            });
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
        const newCounts = countsOf(newRS);
        const next = reconcileNewReplicaSet(
          desired,
          maxSurge,
          [newCounts, ...oldCounts],
          newCounts,
        );
        if (next !== undefined) await scaleReplicaSet(newRS, next, deployment, maxSurge);
        // The old sets in the same pass, from the counts this pass started with: the new set's
        // growth is not counted yet, which only makes the scale-down more careful.
        const { replicas } = reconcileOldReplicaSets(desired, maxUnavailable, oldCounts, newCounts);
        for (const [index, rs] of old.entries()) {
          const target = replicas[index];
          if (target !== undefined && target !== oldCounts[index]?.replicas)
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
    };
    const conditionKey = (list: V1DeploymentCondition[] | undefined) =>
      JSON.stringify(
        (list ?? []).map((item) => [item.type, item.status, item.reason, item.message]),
      );
    await patchStatusIfChanged({
      current: deployment.status,
      desired: status,
      extra: { conditions },
      // Conditions compare by what they say, not by their probe times.
      changed: conditionKey(deployment.status?.conditions) !== conditionKey(conditions),
      write: (body) =>
        clients.apps.patchNamespacedDeploymentStatus({ name, namespace, body }, mergePatch()),
    });
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

  await controller.run(reconcileDeployment);
  return controller;
}
