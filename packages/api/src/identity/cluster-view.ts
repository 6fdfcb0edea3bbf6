import {
  describeRejections,
  type GpuModel,
  type PreviewResult,
  rejectionMessage,
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

/** Each node group's verdict without the nodes it names, nor their free room (a shortfall's figure). */
export function rejectionsWithoutNodes(rejections: readonly Rejection[]): Rejection[] {
  return rejections.map(({ nodes: _nodes, ...verdict }) => {
    const { freeComputePercent, freeMemoryMiB, ...params } = verdict.params;
    if (freeComputePercent === undefined && freeMemoryMiB === undefined) return verdict;
    return { ...verdict, params, message: rejectionMessage(verdict.code, params) };
  });
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

/**
 * `workload.preview` (and `workload.scalePreview`): whether each replica fits now and why not
 * per group, not where.
 */
export function previewWithoutNodes<Preview extends Pick<PreviewResult, 'placement' | 'verdict'>>(
  preview: Preview,
): Preview {
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
  const { verdict } = preview;
  return {
    ...preview,
    placement: { ...preview.placement, replicas, nodesWithheld: true },
    verdict:
      verdict.verdict === 'waiting'
        ? { ...verdict, rejections: rejectionsWithoutNodes(verdict.rejections) }
        : verdict,
  };
}

/** What a pending pod or group says of the nodes: its verdict's parts that name them. */
interface PendingVerdictLike {
  rejections: Rejection[];
  message: string;
  fitsNow?: string | null | undefined;
  largestFits?: unknown;
}

/**
 * `cluster.pending*`: a pending pod's or group's rejection codes per node group, without the
 * nodes they name, the pool that would take it or what still fits where (one cut for both).
 */
export function pendingWithoutNodes<T extends PendingVerdictLike>(
  item: T,
): Omit<T, 'fitsNow' | 'largestFits' | 'rejections' | 'message'> &
  PendingVerdictLike & { nodesWithheld: true } {
  const { fitsNow: _fitsNow, largestFits: _largestFits, rejections, message, ...rest } = item;
  const withheld = rejectionsWithoutNodes(rejections);
  return {
    ...rest,
    rejections: withheld,
    message: withheld.length > 0 ? describeRejections({ rejections: withheld }) : message,
    nodesWithheld: true,
  };
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
