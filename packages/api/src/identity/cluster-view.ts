import {
  describeRejections,
  type GpuModel,
  type PendingPod,
  type PreviewResult,
  type WorkloadProgress,
} from '@mgpu/shared';
import type { BffContext } from '../trpc/context.js';

/**
 * The reads every operator needs to create — the form's GPU models, the placement preview, the
 * pending pods, a stuck pod's reasons — as an operator who may not `list nodes` sees them (spec §8: the cluster-wide
 * figures only with `list nodes`): one function per shape, each keeping what the form and the
 * operator's own pods need and dropping node names, card indexes, node counts and free room.
 * Rejection codes and their parameters stay: those describe the pod's own request and the node
 * group's model, policy and cards per node, which the GPU model choice offers anyway.
 */

type Rejection = PreviewResult['placement']['replicas'][number]['rejections'][number];

/** Whether the request's operator, if any, may see node-level detail: they may `list nodes`. */
export async function seesNodes(ctx: BffContext): Promise<boolean> {
  return ctx.operator === undefined || (await ctx.accessReviews.mayListNodes(ctx.operator));
}

/** Each node group's verdict without the nodes it names. */
export function rejectionsWithoutNodes(rejections: readonly Rejection[]): Rejection[] {
  return rejections.map(({ nodes: _nodes, ...verdict }) => verdict);
}

/** `gpu.models`: what the GPU model choice offers (shape, types, policies), no counts or free room. */
export function modelsWithoutFigures(models: readonly GpuModel[]): GpuModel[] {
  return models.map(({ model, memoryMiBPerCard, cardsPerNode, resourceTypes, policies }) => ({
    model,
    memoryMiBPerCard,
    cardsPerNode,
    resourceTypes,
    policies,
  }));
}

/** `workload.preview`: whether each replica fits now and why not per group, not where. */
export function previewWithoutNodes(preview: PreviewResult): PreviewResult {
  const replicas = preview.placement.replicas.map((replica) => {
    const rejections = rejectionsWithoutNodes(replica.rejections);
    return replica.ok
      ? { replica: replica.replica, ok: true as const, rejections }
      : {
          replica: replica.replica,
          ok: false as const,
          rejections,
          message: describeRejections({ rejections }),
        };
  });
  return { ...preview, placement: { ...preview.placement, replicas, nodesWithheld: true } };
}

/** `cluster.pending`: each pod's rejection codes per group; no nodes, pools that fit or free room. */
export function pendingWithoutNodes(pods: readonly PendingPod[]): PendingPod[] {
  return pods.map(
    ({ fitsNow: _fitsNow, largestFits: _largestFits, rejections, message, ...pod }) => {
      const withheld = rejectionsWithoutNodes(rejections);
      return {
        ...pod,
        rejections: withheld,
        message: withheld.length > 0 ? describeRejections({ rejections: withheld }) : message,
        nodesWithheld: true,
      };
    },
  );
}

/** `workload.progress`: a stuck pod's rejection codes per group, without the nodes they name. */
export function progressWithoutNodes(progress: WorkloadProgress): WorkloadProgress {
  return {
    ...progress,
    pods: progress.pods.map((pod) =>
      pod.rejections ? { ...pod, rejections: rejectionsWithoutNodes(pod.rejections) } : pod,
    ),
  };
}
