import type { Registry } from '../apiserver/registry.js';
import type { RunningController } from '../controllers/controller.js';
import { startGarbageCollector } from './garbage-collector.js';
import { startNamespaceController } from './namespace-controller.js';

export { startGarbageCollector } from './garbage-collector.js';
export { startNamespaceController } from './namespace-controller.js';

/**
 * The part of kube-controller-manager the embedded API server brings along: deletion
 * (garbage collection by ownerReferences, namespace teardown). The deployment and replicaset
 * controllers, the scheduler and the node agents are clients in `../controllers/`.
 */
export function startControllerManager(
  registry: Registry,
  options: { log?: (message: string) => void } = {},
): RunningController {
  const running = [
    startGarbageCollector(registry, options),
    startNamespaceController(registry, options),
  ];
  return {
    async stop() {
      await Promise.allSettled(running.map((controller) => controller.stop()));
    },
    async idle() {
      for (const controller of running) await controller.idle();
    },
  };
}
