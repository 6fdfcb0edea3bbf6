/**
 * Leadership among the console's replicas (issue 30): work that must happen once per cluster
 * (history sampling) runs where `leading` is true. `LeaderElector` (a Lease, as
 * kube-controller-manager's) comes beside this; `ALWAYS_LEADING` is one replica without a lease.
 */
export interface Leadership {
  /** Whether this process holds the lease now. */
  readonly leading: boolean;
  /** Called with true when this process starts leading and false when it stops; returns an unsubscribe. */
  onChange(listener: (leading: boolean) => void): () => void;
}

/** A process that is always the leader (one replica, no lease needed, e.g. tests). */
export const ALWAYS_LEADING: Leadership = {
  leading: true,
  onChange: () => () => {},
};
