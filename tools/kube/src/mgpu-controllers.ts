import type { KubeConfig } from '@kubernetes/client-node';
import { type RunningController, startControllers, type Topology } from '@mgpu/cluster-sim';

/**
 * The project's controllers against the real API server: the node agents (standing in for
 * kubelets) and the two-layer mGPU scheduler, but NOT the embedded deployment controller,
 * because kube-controller-manager's deployment and replicaset controllers do that job here.
 * They talk to the API only through client-node, so they run unchanged.
 */
export function startMgpuControllers(
  kubeConfig: KubeConfig,
  topology: Topology,
  log: (message: string) => void,
): Promise<RunningController> {
  return startControllers(kubeConfig, {
    topology,
    deploymentController: false,
    log: (message) => log(`controllers: ${message}`),
  });
}
