import type { KubeConfig } from '@kubernetes/client-node';
import { SharedInformerFactory } from '@mgpu/kube-client';
import type { Topology } from '../topology/topology.js';
import type { RunningController } from './controller.js';
import { startDeploymentController } from './deployment-controller.js';
import { startJobController } from './job-controller.js';
import { startNodeAgents } from './node-agent.js';
import { startReplicaSetController } from './replicaset-controller.js';
import { type SchedulerOptions, startScheduler } from './scheduler.js';
import { startStatefulSetController } from './statefulset-controller.js';

export * from './controller.js';
export * from './deployment-controller.js';
export * from './event-recorder.js';
export * from './job-controller.js';
export * from './node-agent.js';
export * from './replicaset-controller.js';
export * from './scheduler.js';
export * from './slow-start.js';
export * from './statefulset-controller.js';
export * from './work-queue.js';

/** The scheduler under the name the real control plane's launcher looks up. */
export const startMgpuScheduler = (
  kubeConfig: KubeConfig,
  options: SchedulerOptions & { topology?: Topology } = {},
) => startScheduler(kubeConfig, options);

export interface ControllersOptions {
  topology: Topology;
  /**
   * Off when kube-controller-manager runs the workload controllers (a real control plane):
   * deployment, replicaset, StatefulSet and Job alike.
   */
  deploymentController?: boolean;
  scheduler?: SchedulerOptions;
  log?: (message: string) => void;
}

/**
 * Every controller of the embedded cluster: node agents first, so the scheduler sees Ready nodes.
 * They share one informer per resource (one pod cache for all of them), stopped after the last.
 */
export async function startControllers(
  kubeConfig: KubeConfig,
  options: ControllersOptions,
): Promise<RunningController> {
  const log = options.log ?? (() => undefined);
  const informers = new SharedInformerFactory(kubeConfig);
  const running: RunningController[] = [];
  const stopAll = async () => {
    await Promise.allSettled([...running].reverse().map((controller) => controller.stop()));
    await informers.stop();
  };
  try {
    running.push(await startNodeAgents(kubeConfig, { topology: options.topology, log, informers }));
    running.push(await startScheduler(kubeConfig, { log, ...options.scheduler, informers }));
    if (options.deploymentController !== false) {
      running.push(await startReplicaSetController(kubeConfig, { log, informers }));
      running.push(await startDeploymentController(kubeConfig, { log, informers }));
      running.push(await startStatefulSetController(kubeConfig, { log, informers }));
      running.push(await startJobController(kubeConfig, { log, informers }));
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    stop: stopAll,
    async idle() {
      for (const controller of running) await controller.idle();
    },
  };
}
