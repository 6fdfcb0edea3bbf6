import {
  allocationOf,
  applyAllocation,
  buildPodTemplate,
  describeRejections,
  type NodeState,
  type PreviewResult,
  placePod,
  podDemandOf,
  type WorkloadRequest,
} from '@mgpu/shared';
import type { BffContext } from '../trpc/context.js';

/** Replicas beyond this are not previewed one by one: the answer would not fit on a screen. */
export const MAX_PREVIEWED_REPLICAS = 16;

/**
 * Beyond this many replicas the verdict stops placing: `replicas-exceed-cluster` already refuses
 * more than the cluster's nodes hold, so a valid request never gets here on a real cluster.
 */
const MAX_PLACED_REPLICAS = 4096;

type ReplicaRow = PreviewResult['placement']['replicas'][number];

/** What to place: `count` more replicas of `request`, the first numbered `first` (0-based). */
export interface ReplicaRun {
  first: number;
  count: number;
}

/**
 * Where each of `run`'s replicas would land now, one after another on nodes that see the earlier
 * ones' cards as taken, as the scheduler would; stops at the first that no node takes (every
 * later one needs the same room). The first `MAX_PREVIEWED_REPLICAS` are explained one by one;
 * the rest are placed silently, so the verdict still covers every replica, and only a refusal
 * among them gets a row. `containers` are the check's shares of every GPU container.
 */
export function placeReplicas(
  ctx: BffContext,
  request: WorkloadRequest,
  containers: Parameters<typeof buildPodTemplate>[1],
  states: readonly NodeState[],
  run: ReplicaRun,
): ReplicaRow[] {
  const { modelLabel, cardPolicy } = ctx;
  const template = buildPodTemplate(request, containers, { modelLabel });
  const demand = podDemandOf(
    {
      metadata: { ...template.metadata, name: request.name, namespace: request.namespace },
      spec: template.spec,
    },
    { modelLabel },
  );
  const rows: ReplicaRow[] = [];
  // The shared states are read-only: a node the next replica must see as fuller is cloned, once
  // (later replicas on it book onto the same copy), so thousands of replicas cost one clone per
  // node they land on, not one per replica, nor a new list of every node per replica.
  const working = [...states];
  const indexOf = new Map(states.map((state, index) => [state.name, index]));
  const copied = new Set<number>();
  const count = Math.min(Math.max(run.count, 0), MAX_PLACED_REPLICAS);
  for (let offset = 0; offset < count; offset++) {
    const replica = run.first + offset;
    const shown = offset < MAX_PREVIEWED_REPLICAS;
    // The preview, unlike the scheduler, also says why the other nodes would not take it.
    const result = placePod(demand, working, { cardPolicy, modelLabel, explainRejected: shown });
    if (!result.ok) {
      rows.push({
        replica,
        ok: false,
        totalNodes: result.totalNodes,
        rejections: result.rejections,
        message: describeRejections(result),
      });
      break;
    }
    if (shown) {
      rows.push({
        replica,
        ok: true,
        node: result.node,
        cards: result.cards,
        fitting: result.fitting ?? 1,
        rejections: result.rejections ?? [],
      });
    }
    // The next replica sees this one's cards as taken, as the scheduler would.
    const index = indexOf.get(result.node);
    const chosen = index === undefined ? undefined : working[index];
    if (index === undefined || chosen === undefined) continue;
    const booked = copied.has(index) ? chosen : structuredClone(chosen);
    working[index] = booked;
    copied.add(index);
    applyAllocation(booked, allocationOf(demand, result.node, result.cards));
  }
  return rows;
}
