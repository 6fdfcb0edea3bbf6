import {
  checkRequest,
  checkScale,
  checkWorkloadTarget,
  readWorkloadObject,
  requestVerdict,
  ScalePreviewInputSchema,
  type ScalePreviewResult,
  ScalePreviewResultSchema,
  type WorkloadRequest,
} from '@mgpu/shared';
import { previewWithoutNodes, seesNodes } from '../identity/cluster-view.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { placeReplicas } from './place-replicas.js';
import { clusterCheckOptions, requireClusterKnown } from './workload-preview.js';
import { ownedBy } from './workload-progress.js';
import { resolveWorkload } from './workload-target.js';

/**
 * `workload.scalePreview` (spec §9): the verdict on a scale before it is sent. The workload is
 * read as `workload.scale` reads it (with the operator's identity), judged by the same
 * `checkScale`; then only the replicas the scale adds are placed, beside the workload's pods
 * that hold a node now — those keep their cards, as Kubernetes leaves them. Its pods still
 * waiting for a node are among those placed: they wait for the same room.
 */
export const workloadScalePreview = publicProcedure
  .input(ScalePreviewInputSchema)
  .output(ScalePreviewResultSchema)
  .query(async ({ ctx, input }) => {
    const { namespace, name, replicas, lang } = input;
    const target: WorkloadRequest = { name, namespace, replicas, containers: [] };
    const options = clusterCheckOptions(ctx, lang);
    // A reserved namespace is refused before anything is read there, as the scale does.
    const reserved = checkWorkloadTarget(namespace, options);
    if (reserved.length > 0) throw ruleFailure('BAD_REQUEST', reserved);
    // Before the nodes were listed once every added replica would read `waiting`, a guess: the
    // preview waits for the list briefly, then answers the scale's own retryable 503.
    await requireClusterKnown(ctx, lang, target);
    const live = await resolveWorkload(ctx, { namespace, name, kind: input.kind }, target, lang);
    const workload = readWorkloadObject(live, { modelLabel: ctx.modelLabel })?.request ?? target;
    const errors = checkScale(workload, replicas, options);
    // A finished Job pod holds nothing; a pod on its way out gives its cards back.
    const running = ctx.cluster.pods
      .list()
      .filter(
        (pod) =>
          ownedBy(pod, live) &&
          !pod.metadata?.deletionTimestamp &&
          pod.spec?.nodeName &&
          pod.status?.phase !== 'Succeeded' &&
          pod.status?.phase !== 'Failed',
      ).length;
    const scaled = { ...workload, replicas };
    // The shares by the containers' own rules: the live workload's, not a form's.
    const { containers } = checkRequest(scaled, { lang, modelLabel: ctx.modelLabel });
    const gpuContainers = scaled.containers.filter(
      (c) => c.gpu !== undefined && c.gpu.type !== 'none',
    );
    const adding = Math.max(0, replicas - running);
    const rows =
      errors.length === 0 && gpuContainers.length === containers.length
        ? placeReplicas(ctx, scaled, containers, ctx.views.nodeStates(), {
            first: running,
            count: adding,
          })
        : [];
    const preview: ScalePreviewResult = {
      running,
      errors,
      placement: { cardPolicy: ctx.cardPolicy, replicas: rows },
      verdict: requestVerdict({
        check: { valid: errors.length === 0, errors },
        wanted: adding,
        firstReplica: running,
        placement: rows,
      }),
    };
    return (await seesNodes(ctx)) ? preview : previewWithoutNodes(preview);
  });
