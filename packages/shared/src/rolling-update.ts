/**
 * The rolling-update arithmetic of Kubernetes' deployment controller (`rolling.go`,
 * `util/deployment_util.go`), as pure functions over replica counts: how far the new
 * ReplicaSet may grow within maxSurge and how far the old ones may shrink within
 * maxUnavailable. The embedded cluster's deployment controller reads the counts from its caches
 * and writes the answers, and the BFF's edit preview resolves maxSurge as it will; the cases of
 * `rolling_test.go` run against these functions in `rolling-update.test.ts`.
 */

/** An intstr.IntOrString of the API: `2`, `"2"` or `"25%"`. */
export type IntOrPercent = number | string | undefined;

/** The part of a ReplicaSet the arithmetic reads. */
export interface ReplicaSetCounts {
  /** spec.replicas */
  replicas: number;
  /** status.availableReplicas */
  availableReplicas: number;
}

/** Kubernetes' defaults for both maxSurge and maxUnavailable. */
export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';

/**
 * `GetScaledValueFromIntOrPercent`: an integer as it is, a percent of `total` rounded up
 * (maxSurge) or down (maxUnavailable).
 */
export function scaledValueFromIntOrPercent(
  value: IntOrPercent,
  total: number,
  roundUp: boolean,
): number {
  if (typeof value === 'number') return Math.max(0, Math.floor(value));
  const text = String(value ?? 0);
  const percent = /^(\d+)%$/.exec(text);
  if (percent?.[1]) {
    const exact = (Number(percent[1]) * total) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  }
  const number = Number(text);
  return Number.isFinite(number) ? Math.max(0, Math.floor(number)) : 0;
}

/**
 * `ResolveFenceposts`: maxSurge and maxUnavailable as replica counts for `desired`; both zero
 * would never make progress, so maxUnavailable becomes 1 then.
 */
export function resolveFenceposts(
  maxSurge: IntOrPercent,
  maxUnavailable: IntOrPercent,
  desired: number,
): { maxSurge: number; maxUnavailable: number } {
  const surge = scaledValueFromIntOrPercent(maxSurge ?? DEFAULT_MAX_SURGE, desired, true);
  const unavailable = scaledValueFromIntOrPercent(
    maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
    desired,
    false,
  );
  return { maxSurge: surge, maxUnavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

const sumReplicas = (sets: readonly ReplicaSetCounts[]) =>
  sets.reduce((sum, rs) => sum + rs.replicas, 0);

/**
 * Pods a ReplicaSet counts as available: never more than its spec, since its status may still
 * describe pods it was just told to drop (a scale-down not yet observed would otherwise count
 * twice and let the old sets shrink below maxUnavailable).
 */
const availableOf = (rs: ReplicaSetCounts) => Math.min(rs.replicas, rs.availableReplicas);

/**
 * `NewRSNewReplicas` for a rolling update: the new set grows by what maxSurge leaves above
 * every set's spec replicas, never past `desired`.
 */
export function newReplicaSetReplicas(
  desired: number,
  maxSurge: number,
  allSets: readonly ReplicaSetCounts[],
  newSet: ReplicaSetCounts,
): number {
  const current = sumReplicas(allSets);
  const maxTotal = desired + maxSurge;
  if (current >= maxTotal) return newSet.replicas;
  const scaleUp = Math.min(maxTotal - current, desired - newSet.replicas);
  return Math.max(newSet.replicas, newSet.replicas + scaleUp);
}

/**
 * `reconcileNewReplicaSet`: the new set's next spec replicas, or undefined when it stays: down
 * to `desired` when above it, else grown within maxSurge.
 */
export function reconcileNewReplicaSet(
  desired: number,
  maxSurge: number,
  allSets: readonly ReplicaSetCounts[],
  newSet: ReplicaSetCounts,
): number | undefined {
  if (newSet.replicas === desired) return undefined;
  if (newSet.replicas > desired) return desired;
  const next = newReplicaSetReplicas(desired, maxSurge, allSets, newSet);
  return next === newSet.replicas ? undefined : next;
}

/**
 * `cleanupUnhealthyReplicas`: scales old sets (oldest first) down by their unavailable
 * replicas, at most `maxCleanupCount` in all. Returns each set's spec replicas afterwards, in
 * the order given, and how many were removed.
 */
export function cleanupUnhealthyReplicas(
  oldSets: readonly ReplicaSetCounts[],
  maxCleanupCount: number,
): { replicas: number[]; cleanedUp: number } {
  let cleanedUp = 0;
  const replicas = oldSets.map((rs) => {
    if (cleanedUp >= maxCleanupCount || rs.replicas === 0) return rs.replicas;
    const unhealthy = rs.replicas - availableOf(rs);
    if (unhealthy <= 0) return rs.replicas;
    const cut = Math.min(maxCleanupCount - cleanedUp, unhealthy);
    cleanedUp += cut;
    return rs.replicas - cut;
  });
  return { replicas, cleanedUp };
}

/**
 * `scaleDownOldReplicaSetsForRollingUpdate`: scales old sets (oldest first) down by as many
 * replicas as are available beyond `desired - maxUnavailable` across every set.
 */
export function scaleDownOldReplicaSetsForRollingUpdate(
  desired: number,
  maxUnavailable: number,
  allSets: readonly ReplicaSetCounts[],
  oldSets: readonly ReplicaSetCounts[],
): { replicas: number[]; scaledDown: number } {
  const minAvailable = desired - maxUnavailable;
  const available = allSets.reduce((sum, rs) => sum + availableOf(rs), 0);
  const allowed = Math.max(0, available - minAvailable);
  let scaledDown = 0;
  const replicas = oldSets.map((rs) => {
    if (scaledDown >= allowed || rs.replicas === 0) return rs.replicas;
    const cut = Math.min(rs.replicas, allowed - scaledDown);
    scaledDown += cut;
    return rs.replicas - cut;
  });
  return { replicas, scaledDown };
}

/**
 * `reconcileOldReplicaSets`: the old sets' next spec replicas (in the order given, oldest
 * first): first their unhealthy replicas go, as far as the new set's own unavailable ones leave
 * room, then healthy ones down to `desired - maxUnavailable` available in all.
 */
export function reconcileOldReplicaSets(
  desired: number,
  maxUnavailable: number,
  oldSets: readonly ReplicaSetCounts[],
  newSet: ReplicaSetCounts | undefined,
): { replicas: number[]; scaledDown: number } {
  const unchanged = { replicas: oldSets.map((rs) => rs.replicas), scaledDown: 0 };
  if (sumReplicas(oldSets) === 0) return unchanged;
  const allSets = newSet ? [...oldSets, newSet] : oldSets;
  const minAvailable = desired - maxUnavailable;
  const newUnavailable = newSet ? newSet.replicas - availableOf(newSet) : 0;
  const maxScaledDown = sumReplicas(allSets) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return unchanged;
  const cleanup = cleanupUnhealthyReplicas(oldSets, maxScaledDown);
  const cleaned = oldSets.map((rs, index) => ({
    replicas: cleanup.replicas[index] ?? rs.replicas,
    availableReplicas: rs.availableReplicas,
  }));
  const scaleDown = scaleDownOldReplicaSetsForRollingUpdate(
    desired,
    maxUnavailable,
    newSet ? [...cleaned, newSet] : cleaned,
    cleaned,
  );
  return { replicas: scaleDown.replicas, scaledDown: cleanup.cleanedUp + scaleDown.scaledDown };
}
