export { ClusterClient } from './cluster/cluster-client.js';
export {
  type ClusterConnection,
  connectCluster,
  describeSource,
  embeddedConnection,
} from './cluster/connection.js';
export { PoolHistory } from './live/pool-history.js';
export { ConsoleMetrics } from './observability/metrics.js';
export type { AppRouter } from './router.js';
export { appRouter } from './router.js';
export { type BffOptions, type RunningBff, startBff } from './server.js';
