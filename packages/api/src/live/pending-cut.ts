import {
  type PendingGroup,
  PendingGroupSchema,
  type PendingPod,
  PendingPodsSchema,
  pendingGroupCut,
  podsOfPendingGroups,
} from '@mgpu/shared';
import { pendingWithoutNodes, seesNodes } from '../identity/cluster-view.js';
import { visibleItems } from '../identity/filtered-reads.js';
import type { BffContext } from '../trpc/context.js';
import { preparedSize, prepareOutput } from '../trpc/prepared-output.js';
import type { PendingState } from './pending-pods.js';

/**
 * What of the shared pending view one caller sees (spec §8): with per-user auth, the groups of
 * the namespaces they may `list pods` in, and without node names, pools that fit or free room
 * unless they may `list nodes` (`pendingWithoutNodes`, kept per group).
 * Every derived object is kept per group, so a group that did not change stays the same object
 * for every caller (and a watch does not send it again).
 */

const withheld = new WeakMap<PendingGroup, PendingGroup>();
const cuts = new WeakMap<PendingGroup, Map<number, PendingGroup>>();
/**
 * Per state, the pod lists made for each set of visible groups, least recently read first:
 * callers who see the same share one.
 */
const podLists = new WeakMap<PendingState, Map<string, PendingPod[]>>();
/**
 * What one state keeps: a list of 1,500 pods is ~4 MB once written, so the written JSON is
 * bounded by bytes (operators of a few teams, each with a namespace or not, fit). A list not
 * written yet (read in-process) weighs 0 in that sum, so the number of lists, written or not,
 * is bounded as well.
 */
const VIEW_BYTES_KEPT = 64 * 1024 * 1024;
const VIEWS_KEPT = 32;

/** `group` as an operator who may not list nodes sees it: rejection codes per node group only. */
export function pendingGroupWithoutNodes(group: PendingGroup): PendingGroup {
  let cut = withheld.get(group);
  if (cut === undefined) {
    cut = PendingGroupSchema.parse(pendingWithoutNodes(group));
    withheld.set(group, cut);
  }
  return cut;
}

/** `group` listing at most `podLimit` pods: one object per group and limit. */
export function pendingGroupListing(group: PendingGroup, podLimit: number): PendingGroup {
  if (group.pods.length <= podLimit) return group;
  let byLimit = cuts.get(group);
  if (byLimit === undefined) {
    byLimit = new Map();
    cuts.set(group, byLimit);
  }
  let cut = byLimit.get(podLimit);
  if (cut === undefined) {
    cut = pendingGroupCut(group, podLimit);
    // A "show more" asks for arbitrary limits: keep the few most recent per group.
    if (byLimit.size >= 4) byLimit.clear();
    byLimit.set(podLimit, cut);
  }
  return cut;
}

/** The pending groups of `namespace` (or all) the request's operator, if any, may see. */
export async function pendingGroupsFor(
  ctx: BffContext,
  namespace: string | undefined,
): Promise<readonly PendingGroup[]> {
  return (await visibleGroups(ctx, namespace)).groups;
}

async function visibleGroups(ctx: BffContext, namespace: string | undefined) {
  const state = await ctx.views.pending.current();
  const wanted = namespace
    ? state.groups.filter((group) => group.namespace === namespace)
    : state.groups;
  if (!ctx.operator) return { state, groups: wanted, nodes: true };
  const [visible, nodes] = await Promise.all([visibleItems(ctx, wanted), seesNodes(ctx)]);
  return { state, groups: nodes ? visible : visible.map(pendingGroupWithoutNodes), nodes };
}

/**
 * Every pending pod the caller may see, one object per pod sharing its group's verdict (spec §8
 * `cluster.pending`). Built from validated groups, so marked as valid output: 1,500 pods are
 * not parsed again per call. Every caller who sees the same groups of one state (everyone
 * without per-user auth, a team's operators with it) shares one list and its one JSON text:
 * read-only.
 */
export async function pendingPodsFor(
  ctx: BffContext,
  namespace: string | undefined,
): Promise<PendingPod[]> {
  const { state, groups, nodes } = await visibleGroups(ctx, namespace);
  let lists = podLists.get(state);
  if (lists === undefined) {
    lists = new Map();
    podLists.set(state, lists);
  }
  // A group's key names its namespace, workload and shape: the same keys, the same pods.
  const seen = `${nodes ? 'nodes' : 'withheld'}\n${groups.map((group) => group.key).join('\n')}`;
  let pods = lists.get(seen);
  if (pods !== undefined) {
    lists.delete(seen);
    lists.set(seen, pods);
    return pods;
  }
  pods = preparedPods(podsOfPendingGroups(groups));
  lists.set(seen, pods);
  dropLeastRecent(lists);
  return pods;
}

/** Drops the least recently read lists until the rest fit `VIEW_BYTES_KEPT` and `VIEWS_KEPT`. */
function dropLeastRecent(lists: Map<string, PendingPod[]>): void {
  let bytes = 0;
  for (const pods of lists.values()) bytes += preparedSize(pods);
  for (const [seen, pods] of lists) {
    if (lists.size <= 1 || (bytes <= VIEW_BYTES_KEPT && lists.size <= VIEWS_KEPT)) return;
    bytes -= preparedSize(pods);
    lists.delete(seen);
  }
}

/**
 * Marks a list made from validated groups (or a slice of one) as valid `cluster.pending` output.
 * The list is read-only, so its JSON is written once, as the bytes the prepared output keeps
 * (`preparedBytes`), at the first call that needs them: 1,500 pods are ~4 MB, and 20 callers of
 * one state share that one copy (made synchronously, so calls that arrive together cannot each
 * start their own). No text is kept beside them.
 */
export function preparedPods(pods: PendingPod[]): PendingPod[] {
  return prepareOutput(PendingPodsSchema, pods, () => JSON.stringify(pods));
}
