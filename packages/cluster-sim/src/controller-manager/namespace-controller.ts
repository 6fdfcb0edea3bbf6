import type { Registry } from '../apiserver/registry.js';
import { Controller, type RunningController } from '../controllers/controller.js';
import { runOnDeletionWork } from './deletion-work.js';

/**
 * The namespace controller, as kube-controller-manager's: a namespace marked Terminating has
 * its contents deleted (each by the ordinary delete, so graceful pods and finalizers take their
 * course), and once nothing is left in it the namespace itself goes. Keyed by namespace name;
 * each reconcile reads what is stored now, so running one twice changes nothing.
 *
 * In process, like the garbage collector: on the real tier kube-controller-manager does this.
 */
export function startNamespaceController(
  registry: Registry,
  options: { log?: (message: string) => void } = {},
): RunningController {
  const { store } = registry;
  const namespaces = registry.namespaceDefinition();
  const controller = new Controller('namespace controller', {
    workers: 1,
    ...(options.log ? { log: options.log } : {}),
  });

  /** Every terminating namespace: a delete anywhere may have emptied one. */
  const scan = () => {
    for (const namespace of store.state(namespaces).objects.values()) {
      if (namespace.metadata.deletionTimestamp) controller.add(namespace.metadata.name ?? '');
    }
  };

  async function reconcile(name: string): Promise<void> {
    const namespace = store.get(namespaces, undefined, name);
    if (!namespace?.metadata.deletionTimestamp) return;
    let empty = true;
    for (const definition of store.definitions()) {
      if (!definition.namespaced) continue;
      // A copy: deleting commits while it walks.
      for (const object of [...store.state(definition).objects.values()]) {
        if (object.metadata.namespace !== name) continue;
        empty = false;
        if (!object.metadata.deletionTimestamp) {
          registry.delete(definition, name, object.metadata.name ?? '', { dryRun: false });
        }
      }
    }
    // Whatever is still going (graceful pods, finalizers) brings the namespace back here when
    // its delete completes.
    if (empty) store.commit(namespaces, 'DELETED', namespace, namespace);
  }

  return runOnDeletionWork(registry, controller, scan, reconcile);
}
