import type { Registry } from '../apiserver/registry.js';
import type { Controller, RunningController } from '../controllers/controller.js';
import type { Reconcile } from '../controllers/work-queue.js';

/**
 * Runs `controller` on `reconcile`, queueing what `scan` finds after every write that may leave
 * deletion work (coalesced to one scan per turn of the event loop), and once at the start for
 * what was in flight before a restart: the informer of a controller that works on the store.
 * `rescan()` asks for a scan after a change the controller committed itself.
 */
export function runOnDeletionWork(
  registry: Registry,
  controller: Controller,
  scan: () => void,
  reconcile: Reconcile,
): RunningController & { rescan(): void } {
  let pending: NodeJS.Immediate | undefined;
  const rescan = () => {
    pending ??= setImmediate(() => {
      pending = undefined;
      scan();
    });
  };
  const unwatch = registry.watchDeletions(rescan);
  rescan();
  void controller.run(reconcile);
  return {
    rescan,
    async stop() {
      unwatch();
      if (pending) clearImmediate(pending);
      pending = undefined;
      await controller.stop();
    },
    idle: () => controller.idle(),
  };
}
