import type { CardPolicy } from '@mgpu/shared';
import type { ClusterClient } from '../cluster/cluster-client.js';
import type { ClusterViews } from '../cluster/cluster-views.js';
import type { ClusterSource } from '../cluster/connection.js';
import type { AccessReviews } from '../identity/access-reviews.js';
import type { AuditEntry } from '../identity/audit.js';
import type { Operator } from '../identity/operator.js';
import type { AllocationFeed } from '../live/allocation-feed.js';
import type { PoolHistory } from '../live/pool-history.js';
import type { PrometheusHistory } from '../live/prometheus-history.js';
import type { UsageContext } from '../usage/usage-settings.js';

/** What every procedure gets: the cluster, its live state, and how the scheduler picks cards. */
export interface BffContext {
  cluster: ClusterClient;
  source: ClusterSource;
  allocations: AllocationFeed;
  /** Items per part of a subscription's snapshot (`SNAPSHOT_PART_SIZE`; tests make it small). */
  snapshotPartSize: number;
  /**
   * What the informers show, derived once for the process (node states, pools, pod slots,
   * quotas, pending pods): built in `startBff`, shared by every operator, whose answers are cuts
   * of it (`identity/filtered-reads.ts`), and by `PoolHistory` and the metrics.
   */
  views: ClusterViews;
  /** The last hour (configurable) of per-pool figures (`cluster.history`). */
  history: PoolHistory;
  /** With `--prometheus-url`: the same figures as Prometheus kept them (issue 30). */
  prometheusHistory?: PrometheusHistory;
  /** Where GPU usage is read and the idle settings (`usage.*`, issue 28). */
  usage: UsageContext;
  cardPolicy: CardPolicy;
  /**
   * The node label that names a node's GPU model (VKE's by default; a real cluster may use
   * another, e.g. GPU feature discovery's `nvidia.com/gpu.product`): read from nodes, written
   * into manifests' affinity, matched by the placement preview.
   */
  modelLabel: string;
  /** Namespaces no workload may be created in (rule namespace-reserved); unset: the rule's defaults. */
  reservedNamespaces?: readonly string[];
  /** The signed-in operator's RBAC decisions (cached), which filter what the informers show them. */
  accessReviews: AccessReviews;
  /** The signed-in operator; absent without per-user auth. Their calls use their identity. */
  operator?: Operator;
  /** Where each mutation's audit line goes (the console's logger); unset: none is written. */
  audit?: (entry: AuditEntry) => void;
}
