import type { ObjectMeta } from '../apiserver/kube-object.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type Registry } from '../apiserver/registry.js';
import { Controller, type RunningController } from '../controllers/controller.js';
import { runOnDeletionWork } from './deletion-work.js';

/**
 * The garbage collector, as kube-controller-manager's: a dependent whose owners are all gone is
 * deleted in the background; the dependents of an owner deleted in the foreground are deleted
 * (in the foreground too), and once it has none left the owner's `foregroundDeletion`
 * finalizer comes off, which completes its delete; an owner deleted with Orphan has its
 * ownerReference taken off every dependent, then its `orphan` finalizer. Keyed by uid; each
 * reconcile reads the object and its owners as stored now, so running one twice changes nothing.
 *
 * It works on the embedded API server's store in process, where the owner graph is indexed
 * (`dependentsOf`, `ownerUids`): a collector through the API would need a watch on every kind.
 * On the real tier kube-controller-manager does this itself.
 */
export function startGarbageCollector(
  registry: Registry,
  options: { log?: (message: string) => void } = {},
): RunningController {
  const { store } = registry;
  const controller = new Controller('garbage collector', {
    workers: 1,
    ...(options.log ? { log: options.log } : {}),
  });

  const isDeletingInForeground = (meta: ObjectMeta | undefined) =>
    meta?.finalizers?.includes(FOREGROUND_FINALIZER) ?? false;
  const isOrphaning = (meta: ObjectMeta | undefined) =>
    meta?.finalizers?.includes(ORPHAN_FINALIZER) ?? false;

  /**
   * What may have work, through the store's owner graph: the dependents of owners that are gone
   * or deleting in the foreground, and the owners waiting for their dependents. A scan costs
   * the owners, not every object (it follows every delete).
   */
  const scan = () => {
    for (const ownerUid of store.ownerUids()) {
      const owner = store.findByUid(ownerUid)?.object;
      if (owner === undefined || isDeletingInForeground(owner.metadata)) {
        for (const uid of store.dependentsOf(ownerUid)) controller.add(uid);
      }
    }
    for (const uid of store.finalizingUids()) {
      const metadata = store.findByUid(uid)?.object.metadata;
      if (isDeletingInForeground(metadata) || isOrphaning(metadata)) controller.add(uid);
    }
  };

  /** Takes `finalizer` off an object being deleted; the last one off completes the delete. */
  const finish = (uid: string, finalizer: string) => {
    const found = store.findByUid(uid);
    if (!found) return;
    const { definition, object } = found;
    const remaining = (object.metadata.finalizers ?? []).filter((item) => item !== finalizer);
    const next: ObjectMeta = { ...object.metadata, finalizers: remaining };
    if (remaining.length === 0) {
      delete next.finalizers;
      store.commit(definition, 'DELETED', { ...object, metadata: next }, object);
    } else {
      store.commit(definition, 'MODIFIED', { ...object, metadata: next }, object);
    }
    // Its own owner may have been waiting for it.
    running.rescan();
  };

  /** Takes the ownerReference to `ownerUid` off each of its dependents. */
  const orphanDependents = (ownerUid: string) => {
    for (const uid of store.dependentsOf(ownerUid)) {
      const found = store.findByUid(uid);
      if (!found) continue;
      const { definition, object } = found;
      const references = object.metadata.ownerReferences ?? [];
      const remaining = references.filter((reference) => reference.uid !== ownerUid);
      const metadata: ObjectMeta = { ...object.metadata, ownerReferences: remaining };
      if (remaining.length === 0) delete metadata.ownerReferences;
      store.commit(definition, 'MODIFIED', { ...object, metadata }, object);
    }
  };

  async function reconcile(uid: string): Promise<void> {
    const found = store.findByUid(uid);
    if (!found) return;
    const { definition, object } = found;
    const { metadata } = object;
    if (metadata.deletionTimestamp) {
      if (isOrphaning(metadata)) {
        orphanDependents(uid);
        finish(uid, ORPHAN_FINALIZER);
      } else if (isDeletingInForeground(metadata) && store.dependentsOf(uid).length === 0) {
        // Every dependent is gone: the foreground delete completes.
        finish(uid, FOREGROUND_FINALIZER);
      }
      return;
    }
    const owners = (metadata.ownerReferences ?? []).map(
      (reference) => store.findByUid(reference.uid)?.object,
    );
    if (owners.length === 0) return;
    const gone = owners.every((owner) => owner === undefined);
    const foregroundOwner = owners.some((owner) => isDeletingInForeground(owner?.metadata));
    if (!gone && !foregroundOwner) return;
    registry.delete(definition, metadata.namespace, metadata.name ?? '', {
      dryRun: false,
      propagationPolicy: foregroundOwner ? 'Foreground' : 'Background',
    });
    // A graceful delete (a pod on a node) only marks it: in the foreground it now waits on its
    // own finalizer, which the next scan takes off once it has no dependents.
    running.rescan();
  }

  const running = runOnDeletionWork(registry, controller, scan, reconcile);
  return running;
}
