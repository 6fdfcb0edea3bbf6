import {
  comparePendingGroups,
  type PendingGroup,
  type PendingGroupEvent,
  SnapshotAssembly,
} from '@mgpu/shared';

/**
 * The dashboard's pending groups as `cluster.pendingWatch` events build them (issue 25): a pure
 * reducer in the shape of Headlamp's `KubeList.applyUpdate`. The component keeps the state.
 */
export interface PendingGroupsState {
  /** Undefined until the first whole snapshot arrived. */
  groups: readonly PendingGroup[] | undefined;
  assembly: SnapshotAssembly<PendingGroup>;
}

export const initialPendingGroups = (): PendingGroupsState => ({
  groups: undefined,
  assembly: new SnapshotAssembly<PendingGroup>(),
});

/** The state after `event`: a snapshot (once whole) replaces, upserts and deletes edit by key. */
export function applyPendingEvent(
  state: PendingGroupsState,
  event: PendingGroupEvent,
): PendingGroupsState {
  if (event.type === 'snapshot') {
    const whole = state.assembly.add(event, event.groups);
    return whole === undefined
      ? state
      : { ...state, groups: [...whole].sort(comparePendingGroups) };
  }
  // Changes before the first snapshot have nothing to apply to; the snapshot brings them.
  if (state.groups === undefined) return state;
  const byKey = new Map(state.groups.map((group) => [group.key, group]));
  for (const group of event.groups)
    if (event.type === 'delete') byKey.delete(group.key);
    else byKey.set(group.key, group);
  return { ...state, groups: [...byKey.values()].sort(comparePendingGroups) };
}

/** How many pods wait across `groups`. */
export const pendingPodCount = (groups: readonly PendingGroup[]) =>
  groups.reduce((sum, group) => sum + group.podCount, 0);
