import { isPendingGpuPod, type PendingPod, pendingPods } from '@mgpu/shared';
import { currentNodeStates, currentPools } from '../cluster/inventory.js';
import type { BffContext } from '../trpc/context.js';

interface PendingView {
  nodesVersion: number;
  podsVersion: number;
  pods: readonly PendingPod[];
}

/** One list per cluster client, redone only after its informers saw a change. */
const views = new WeakMap<object, PendingView>();

/**
 * Every GPU pod no node holds yet, with the placement asked again against the informers' view
 * (`cluster.pending`, the dashboard's pending section, `mgpu_pending_pods`). Shared by every
 * caller until the caches change, so read-only. With no pending pod — the usual case — it does
 * not even build the node states.
 */
export function currentPendingPods(ctx: BffContext): readonly PendingPod[] {
  const { nodes, pods } = ctx.cluster;
  const cached = views.get(ctx.cluster);
  if (cached?.nodesVersion === nodes.version && cached.podsVersion === pods.version)
    return cached.pods;
  // From the index, not the whole cache: under churn this runs up to ten times a second, and
  // copying 30,000 pods to keep the few that wait was most of it.
  const waiting = ctx.cluster.unscheduledPods().filter(isPendingGpuPod);
  const view: PendingView = {
    nodesVersion: nodes.version,
    podsVersion: pods.version,
    pods:
      waiting.length === 0
        ? []
        : pendingPods(waiting, currentNodeStates(ctx), currentPools(ctx), {
            cardPolicy: ctx.cardPolicy,
            modelLabel: ctx.modelLabel,
          }),
  };
  views.set(ctx.cluster, view);
  return view.pods;
}
