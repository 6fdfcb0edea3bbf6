export type { AppRouter } from '@mgpu/api';
export {
  appRouter,
  ClusterClient,
  type ClusterConnection,
  connectCluster,
  describeSource,
  embeddedConnection,
  PoolHistory,
} from '@mgpu/api';
export { ConsoleMetrics } from './observability/metrics.js';
export { type BffOptions, type RunningBff, startBff } from './server.js';
