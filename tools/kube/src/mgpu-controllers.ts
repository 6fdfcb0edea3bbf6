import type { KubeConfig } from '@kubernetes/client-node';
import type { Topology } from '@mgpu/cluster-sim';

/** What a running controller gives back: cluster:real stops it before the control plane. */
export interface RunningController {
  stop(): Promise<void> | void;
}

type StartControllers = (
  kubeConfig: KubeConfig,
  options: { topology: Topology; deploymentController: false; log: (message: string) => void },
) => Promise<RunningController>;

type StartController = (
  kubeConfig: KubeConfig,
  options: { topology: Topology; log: (message: string) => void },
) => Promise<RunningController>;

/**
 * Starts the project's controllers against the real API server: the node agents and the
 * two-layer mGPU scheduler, but NOT the embedded deployment controller, because
 * kube-controller-manager's deployment and replicaset controllers do that job here.
 *
 * Looked up by name at run time because @mgpu/cluster-sim is being written alongside this
 * launcher: `startControllers(kc, { topology, deploymentController: false })` when exported,
 * else `startNodeAgents` and `startMgpuScheduler`; a missing export is reported, not fatal, so
 * the control plane stays usable meanwhile.
 */
export async function startMgpuControllers(
  kubeConfig: KubeConfig,
  topology: Topology,
  log: (message: string) => void,
): Promise<RunningController[]> {
  const sim: Record<string, unknown> = await import('@mgpu/cluster-sim');
  const controllerLog = (message: string) => log(`controllers: ${message}`);
  if (typeof sim.startControllers === 'function') {
    const start = sim.startControllers as StartControllers;
    log('starting the mGPU node agents and scheduler (startControllers, no deployment controller)');
    return [await start(kubeConfig, { topology, deploymentController: false, log: controllerLog })];
  }
  const running: RunningController[] = [];
  // Node agents first, so the scheduler sees Ready nodes.
  for (const exportName of ['startNodeAgents', 'startMgpuScheduler'] as const) {
    const start = sim[exportName];
    if (typeof start !== 'function') {
      log(`WARNING: @mgpu/cluster-sim does not export ${exportName} yet: not started`);
      continue;
    }
    running.push(await (start as StartController)(kubeConfig, { topology, log: controllerLog }));
    log(`${exportName} done`);
  }
  return running;
}
