/**
 * What a pod's status says, one definition each: whether it is ready (the rollout's counts, the
 * revision groups, the progress view) and the scheduler's refusal (its PodScheduled=False
 * condition, read by the workload's state, the rollout and the progress view).
 */

interface PodCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** The status fields these reads look at; every pod shape of the package has them. */
export interface PodStatusLike {
  status?: { phase?: string; conditions?: readonly PodCondition[] } | undefined;
}

/** A running pod whose Ready condition is True. */
export const isPodReady = (pod: PodStatusLike): boolean =>
  pod.status?.phase === 'Running' &&
  (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The scheduler's PodScheduled=False condition (why no node took the pod), if it set one. */
export const unschedulableCondition = (pod: PodStatusLike): PodCondition | undefined =>
  (pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled' && c.status === 'False');
