import type { KubeConfig, V1JobCondition } from '@kubernetes/client-node';
import { isNotFound, mergePatch, splitKey } from '@mgpu/kube-client';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers, podFromTemplate } from './controller.js';
import { isPodReady } from './replicaset-controller.js';
import { BURST_REPLICAS, createBurst } from './slow-start.js';
import { patchStatusIfChanged } from './status-patch.js';

/** Created pods not seen within this long are forgotten (the watch lost them). */
const EXPECTATION_TTL_MS = 10_000;

/**
 * The Job controller, in the shape of the deployment controller: keeps `parallelism` pods
 * running (never more than the completions still missing; created in the ReplicaSet
 * controller's slow-start bursts), counts Succeeded and Failed pods, and marks the Job
 * `Complete` once `completions` succeeded or `Failed` past `backoffLimit`, removing what still
 * runs. Pods are `<job>-<suffix>` with the template's labels (the API server adds the job-name
 * and controller-uid labels, as kube-apiserver does). Expectations stop a second create while
 * the first one is still on its way through the watch.
 */
export async function startJobController(
  kubeConfig: KubeConfig,
  options: StartControllerOptions = {},
): Promise<RunningController> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;
  const expectedAdds = new Map<string, Map<string, number>>();
  let stopped = false;

  const controller = new Controller('job controller', { workers: 2, ...controllerOptions });
  const pods = controller.owned(informers.pods(), 'Job');
  const jobs = controller.watch(informers.jobs());

  async function reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const job = jobs.get(name, namespace);
    if (!job || job.metadata?.deletionTimestamp) {
      expectedAdds.delete(key);
      return;
    }
    const uid = job.metadata?.uid ?? '';
    const owned = pods.controlledBy(uid);
    const succeeded = owned.filter((pod) => pod.status?.phase === 'Succeeded').length;
    const failed = owned.filter((pod) => pod.status?.phase === 'Failed').length;
    const active = owned.filter(
      (pod) =>
        pod.status?.phase !== 'Succeeded' &&
        pod.status?.phase !== 'Failed' &&
        !pod.metadata?.deletionTimestamp,
    );
    const adds = expectedAdds.get(key) ?? new Map<string, number>();
    expectedAdds.set(key, adds);
    const names = new Set(owned.map((pod) => pod.metadata?.name ?? ''));
    const now = Date.now();
    for (const [pod, at] of adds)
      if (names.has(pod) || now - at > EXPECTATION_TTL_MS) adds.delete(pod);

    const completions = job.spec?.completions;
    const parallelism = job.spec?.parallelism ?? 1;
    const backoffLimit = job.spec?.backoffLimit ?? 6;
    const finished = job.status?.conditions?.some(
      (condition) =>
        (condition.type === 'Complete' || condition.type === 'Failed') &&
        condition.status === 'True',
    );
    // Without completions the Job is done when one pod succeeded and none runs (work queue).
    const complete =
      completions === undefined || completions === null
        ? succeeded > 0 && active.length === 0
        : succeeded >= completions;
    const failedOut = failed > backoffLimit;
    const wanted =
      finished || complete || failedOut || job.spec?.suspend
        ? 0
        : completions === undefined || completions === null
          ? succeeded > 0
            ? 0
            : parallelism
          : Math.min(parallelism, completions - succeeded);

    const running = active.length + adds.size;
    if (running < wanted) {
      const template = job.spec?.template;
      const createOne = async () => {
        const response = await clients.core.createNamespacedPod({
          namespace,
          body: podFromTemplate(
            template,
            { apiVersion: 'batch/v1', kind: 'Job', name, uid },
            namespace,
          ),
        });
        const podName = response.metadata?.name;
        if (podName && !pods.get(podName, namespace)) adds.set(podName, Date.now());
      };
      // The ReplicaSet controller's slow start: parallelism: 1e9 is made a burst per sync.
      if (await createBurst(wanted - running, createOne, () => stopped))
        controller.addAfter(key, 0);
    } else if (active.length > wanted) {
      // Parallelism lowered, or the Job finished: the newest pods go first, a burst per sync.
      const surplus = [...active]
        .sort((a, b) =>
          String(b.metadata?.creationTimestamp ?? '').localeCompare(
            String(a.metadata?.creationTimestamp ?? ''),
          ),
        )
        .slice(0, Math.min(active.length - wanted, BURST_REPLICAS));
      for (const pod of surplus) {
        if (stopped) break;
        try {
          await clients.core.deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      if (active.length - wanted > BURST_REPLICAS && !stopped) controller.addAfter(key, 0);
    }

    const at = new Date();
    const conditions: V1JobCondition[] = [...(job.status?.conditions ?? [])];
    if (!finished && (complete || failedOut)) {
      conditions.push({
        type: complete ? 'Complete' : 'Failed',
        status: 'True',
        ...(failedOut
          ? {
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
            }
          : {}),
        lastProbeTime: at,
        lastTransitionTime: at,
      });
    }
    const status = {
      active: Math.min(active.length, wanted),
      ready: active.filter(isPodReady).length,
      succeeded,
      failed,
    };
    const current = job.status;
    await patchStatusIfChanged({
      current,
      desired: status,
      extra: {
        startTime: current?.startTime ?? at,
        ...(conditions.length > 0 ? { conditions } : {}),
        ...(complete && !finished ? { completionTime: at } : {}),
      },
      // A condition added or no start time yet is a change the counts do not show.
      changed:
        conditions.length !== (current?.conditions?.length ?? 0) ||
        current?.startTime === undefined,
      write: (body) =>
        clients.batch.patchNamespacedJobStatus({ name, namespace, body }, mergePatch()),
    });
  }

  await controller.run(reconcile);
  return {
    async stop() {
      stopped = true;
      await controller.stop();
    },
    idle: () => controller.idle(),
  };
}
