/**
 * The console's API (create-t3-turbo's `packages/api`): the tRPC router and its procedures, the
 * context they get and what it holds. The BFF (`apps/bff`) serves it over HTTP; the web app
 * takes only `type AppRouter` from here, never the server.
 */

// The cluster: its connection, the one client with its informers, the views derived from them.
export { ClusterClient } from './cluster/cluster-client.js';
export { ClusterViews } from './cluster/cluster-views.js';
export {
  type ClusterConnection,
  type ClusterSource,
  connectCluster,
  describeSource,
  embeddedConnection,
} from './cluster/connection.js';
export { WorkloadObjects } from './cluster/workload-objects.js';
// Who asks: an operator's identity, what RBAC lets them see, the audit line of what they did.
export { AccessReviews } from './identity/access-reviews.js';
export type { AuditEntry } from './identity/audit.js';
export {
  pendingWithoutNodes,
  progressWithoutNodes,
  summaryWithoutNodes,
} from './identity/cluster-view.js';
export { type Operator, operatorKubeConfig, operatorToken } from './identity/operator.js';
export { AllocationFeed } from './live/allocation-feed.js';
export {
  decodeHistory,
  encodeHistory,
  type HistorySample,
  PUBLISHED_HISTORY_MAX_BYTES,
  type PublishedHistory,
} from './live/history-codec.js';
export { ConfigMapHistoryStore, type HistoryStore } from './live/history-store.js';
export { PendingPodsView, type PendingSource, type PendingState } from './live/pending-pods.js';
export {
  PoolHistory,
  type PoolHistoryOptions,
  type PoolHistorySnapshot,
} from './live/pool-history.js';
export { PrometheusHistory, type PrometheusHistoryOptions } from './live/prometheus-history.js';
export { SharedRead, type SharedReadOptions } from './live/shared-read.js';
// Usage: the source interface, the embedded exporter's source, the context the procedures read.
export { workloadUsageRows } from './procedures/usage-workloads.js';
export { workloadProgress } from './procedures/workload-progress.js';
export { type AppCaller, type AppRouter, appRouter, createCaller } from './router.js';
export type { BffContext } from './trpc/context.js';
export { createCallerFactory, type RuleErrorShape, RuleErrors, SSE_TIMING } from './trpc/init.js';
export { preparedBytes, preparedJson, prepareOutput } from './trpc/prepared-output.js';
export { snapshotEvents } from './trpc/snapshot-events.js';
export { type CardUseAt, readCardUse, readCardUseBefore } from './usage/card-use.js';
export { ExporterSource, type ExporterSourceOptions } from './usage/exporter-source.js';
// Usage (issue 28): Prometheus as a usage source.
export {
  PrometheusError,
  type PrometheusFailure,
  PrometheusHttp,
  type RangeSeries,
} from './usage/prometheus-http.js';
export { PrometheusSource, type PrometheusSourceOptions } from './usage/prometheus-source.js';
export { readUsage } from './usage/read-usage.js';
export { SharedUsageReads, STALE_FACTOR } from './usage/shared-reads.js';
export { type UsageContext, type UsageOptions, usageContextFor } from './usage/usage-settings.js';
export {
  type CardUsage,
  type CardUtilizationAt,
  type InstanceUsage,
  type UsageQuery,
  type UsageRange,
  type UsageSource,
  unavailableUsageSource,
} from './usage/usage-source.js';
