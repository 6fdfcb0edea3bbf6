/**
 * The simulator's parts the BFF's tests start themselves. Only test-support and the process
 * entry (`main.ts`, lazily) import `@mgpu/cluster-sim`: the console's own code runs on any
 * Kubernetes API and never loads it.
 */
export {
  type ApiServer,
  type EmbeddedCluster,
  loadTopology,
  startApiServer,
  startEmbeddedCluster,
} from '@mgpu/cluster-sim';
