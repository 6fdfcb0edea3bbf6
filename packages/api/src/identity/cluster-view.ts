import {
  describeRejections,
  type GpuModel,
  type PreviewResult,
  rejectionMessage,
  type WorkloadProgress,
  type WorkloadState,
  type WorkloadSummary,
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

/**
 * The scheduler's words for a pod no node takes name node counts ("0/4 nodes are available:
 * 3 …"), so an operator who may not see nodes gets them reworded from the rejections cut of
 * their nodes, or none when there are no rejections to word them from.
 */
const schedulerWordsWithoutNodes = (rejections: readonly Rejection[] | undefined) =>
  rejections && rejections.length > 0 ? describeRejections({ rejections }) : null;

/** A workload's state without the scheduler's words (they count nodes): the reason stays. */
export function stateWithoutNodes(
  state: WorkloadState,
  words: string | null = null,
): WorkloadState {
  return state.reason === 'unschedulable' ? { ...state, message: words } : state;
}

/** `workload.list` / `workload.watch` / `workload.get`: each summary's state without node counts. */
export function summaryWithoutNodes<Summary extends Pick<WorkloadSummary, 'state'>>(
  summary: Summary,
): Summary {
  return summary.state ? { ...summary, state: stateWithoutNodes(summary.state) } : summary;
}

/**
 * `workload.progress`: a stuck pod's rejection codes per group, without the nodes they name,
 * and the scheduler's words (pod, stage, rollout, state) reworded from those codes.
 */
export function progressWithoutNodes(progress: WorkloadProgress): WorkloadProgress {
  const schedulerText = new Map<string, string | null>();
  const pods = progress.pods.map((pod) => {
    if (pod.unschedulable === null) return pod;
    const rejections = pod.rejections && rejectionsWithoutNodes(pod.rejections);
    const words = schedulerWordsWithoutNodes(rejections);
    schedulerText.set(pod.unschedulable, words);
    return { ...pod, unschedulable: words, ...(rejections ? { rejections } : {}) };
  });
  // Only fields that carry the scheduler's words are reworded; words of no pod here go too.
  const reword = (text: string | null) =>
    text === null ? null : (schedulerText.get(text) ?? null);
  const statePod = progress.state?.pod;
  const stateWords = pods.find((pod) => pod.name === statePod)?.unschedulable ?? null;
  return {
    ...progress,
    pods,
    stages: progress.stages.map((stage) =>
      stage.stage === 'scheduled' && stage.state === 'pending'
        ? { ...stage, detail: reword(stage.detail) }
        : stage,
    ),
    ...(progress.rollout
      ? {
          rollout:
            progress.rollout.stall === 'unschedulable'
              ? { ...progress.rollout, message: reword(progress.rollout.message) }
              : progress.rollout,
        }
      : {}),
    ...(progress.state ? { state: stateWithoutNodes(progress.state, stateWords) } : {}),
  };
}
