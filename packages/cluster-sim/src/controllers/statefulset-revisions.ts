import type { V1ControllerRevision, V1StatefulSet } from '@kubernetes/client-node';
import { isConflict, isNotFound, type KubeClients, mergePatch } from '@mgpu/kube-client';

/** The label upstream puts on each ControllerRevision with its hash. */
const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

const numberOf = (revision: V1ControllerRevision) => Number(revision.revision ?? 0);

/**
 * The StatefulSet's update revision as a ControllerRevision, as kube-controller-manager keeps it:
 * named `<set>-<hash>`, its `data` the pod template as a replacing patch, its `revision` one past
 * the highest. A template equal to an older revision's (a rollback) reuses that object and moves
 * its number to the top, as upstream does, so revision numbers say which came last.
 */
export async function keepRevision(
  clients: KubeClients,
  set: V1StatefulSet,
  name: string,
  history: readonly V1ControllerRevision[],
): Promise<void> {
  const namespace = set.metadata?.namespace ?? 'default';
  const highest = Math.max(0, ...history.map(numberOf));
  const existing = history.find((revision) => revision.metadata?.name === name);
  if (existing) {
    if (numberOf(existing) >= highest) return;
    try {
      await clients.apps.patchNamespacedControllerRevision(
        { name, namespace, body: { revision: highest + 1 } },
        mergePatch(),
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return;
  }
  const template = set.spec?.template;
  try {
    await clients.apps.createNamespacedControllerRevision({
      namespace,
      body: {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name,
          namespace,
          labels: {
            ...template?.metadata?.labels,
            [REVISION_HASH_LABEL]: name.slice((set.metadata?.name ?? '').length + 1),
          },
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'StatefulSet',
              name: set.metadata?.name ?? '',
              uid: set.metadata?.uid ?? '',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: { spec: { template: { ...template, $patch: 'replace' } } },
        revision: highest + 1,
      },
    });
  } catch (error) {
    // Our own earlier creation, not yet in the cache: the next pass sees it.
    if (!isConflict(error)) throw error;
  }
}

/**
 * `revisionHistoryLimit` (default 10): the oldest revisions no pod runs and that are neither the
 * current nor the update revision go beyond it, as upstream's `truncateHistory`.
 */
export async function pruneRevisions(
  clients: KubeClients,
  set: V1StatefulSet,
  history: readonly V1ControllerRevision[],
  live: readonly (string | undefined)[],
): Promise<void> {
  const limit = set.spec?.revisionHistoryLimit ?? 10;
  const idle = history
    .filter((revision) => !live.includes(revision.metadata?.name))
    .sort((a, b) => numberOf(a) - numberOf(b));
  for (const revision of idle.slice(0, Math.max(0, idle.length - limit))) {
    try {
      await clients.apps.deleteNamespacedControllerRevision({
        name: revision.metadata?.name ?? '',
        namespace: set.metadata?.namespace ?? 'default',
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
