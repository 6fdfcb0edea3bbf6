/**
 * Deletion as the API server does it: preconditions, graceful deletion (pods on a node),
 * finalizers (the garbage collector's `foregroundDeletion` and `orphan` among them), namespaces
 * marked Terminating, delete of a collection. The garbage collector and the namespace controller
 * themselves are in `../../controller-manager/`; they hear of work through `watchDeletions`.
 */
import { jsonEqual, type KubeObject, metaTime, type ObjectMeta } from '../kube-object.js';
import type { ObjectStore } from '../object-store.js';
import { findResource, findResourceByKind, type ResourceDefinition } from '../resource-table.js';
import { ApiError, conflict, type StatusObject, successStatus } from '../status.js';
import { PROTECTED_NAMESPACES } from './namespaces.js';
import type { DeleteOptions, ListOptions, PropagationPolicy } from './options.js';
import type { ReadVerbs } from './read.js';
import type { DeletionHooks } from './write.js';

/** The finalizer a Foreground delete puts on the owner until its dependents are gone. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer an Orphan delete puts on an owner until its dependents no longer name it. */
export const ORPHAN_FINALIZER = 'orphan';

export interface DeleteResult {
  object: KubeObject;
  /** False while the object stays, marked for deletion (grace period, finalizers, namespace). */
  deleted: boolean;
}

export class Deletion implements DeletionHooks {
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  private readonly deletionWatchers = new Set<() => void>();

  constructor(
    private readonly store: ObjectStore,
    private readonly reads: ReadVerbs,
  ) {}

  /**
   * Tells `watcher` after every write that may leave work for the garbage collector or the
   * namespace controller (`../../controller-manager/`): a delete, a finished finalizer, a
   * namespace marked Terminating, a dependent created for an owner that is gone or going.
   * Returns the function that stops telling it.
   */
  watchDeletions(watcher: () => void): () => void {
    this.deletionWatchers.add(watcher);
    return () => this.deletionWatchers.delete(watcher);
  }

  private deletionWork(): void {
    for (const watcher of this.deletionWatchers) watcher();
  }

  afterCreate(object: KubeObject): void {
    // Like the real garbage collector, which watches every object: a dependent created after
    // its owner went (a controller acting on a stale cache) is collected too.
    if (this.ownerGoneOrGoing(object)) this.deletionWork();
  }

  commitUpdate(definition: ResourceDefinition, next: KubeObject, existing: KubeObject): KubeObject {
    // Removing the last finalizer of an object being deleted (with no grace period pending) completes the delete.
    if (
      next.metadata.deletionTimestamp &&
      (next.metadata.finalizers ?? []).length === 0 &&
      (next.metadata.deletionGracePeriodSeconds ?? 0) === 0
    ) {
      const removed = this.store.commit(definition, 'DELETED', next, existing);
      this.deletionWork();
      return removed;
    }
    return this.store.commit(definition, 'MODIFIED', next, existing);
  }

  /**
   * Whether a new dependent's owners are all gone, or one is being deleted in the foreground:
   * only then does the garbage collector have work. Looked up by owner name, so a create stays O(1)
   * rather than walking every object (10,000 pods made each create walk them all).
   */
  private ownerGoneOrGoing(object: KubeObject): boolean {
    const references = object.metadata.ownerReferences ?? [];
    if (references.length === 0) return false;
    const owners = references.map((reference) => {
      const definition = findResourceByKind(reference.apiVersion, reference.kind);
      // An owner of a kind this server does not serve cannot be found by name: let a full pass decide.
      if (definition === undefined) return undefined;
      const owner = this.store.get(definition, object.metadata.namespace, reference.name);
      return owner?.metadata.uid === reference.uid ? owner : undefined;
    });
    return (
      owners.every((owner) => owner === undefined) ||
      owners.some((owner) => owner?.metadata.finalizers?.includes(FOREGROUND_FINALIZER))
    );
  }

  /** Deletes now, or marks for deletion while finalizers (or foreground dependents) remain. */
  delete(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
  ): DeleteResult {
    let existing = this.reads.get(definition, namespace, name);
    const { preconditions } = options;
    if (preconditions?.uid && preconditions.uid !== existing.metadata.uid) {
      throw conflict(
        definition.group,
        definition.plural,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`,
      );
    }
    if (
      preconditions?.resourceVersion &&
      preconditions.resourceVersion !== existing.metadata.resourceVersion
    ) {
      throw conflict(
        definition.group,
        definition.plural,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion ?? ''}`,
      );
    }
    if (definition.plural === 'namespaces')
      return this.deleteNamespace(definition, existing, options);
    const policy = options.propagationPolicy ?? 'Background';
    const grace =
      definition.gracePeriod?.(existing, options.gracePeriodSeconds, (node) =>
        this.nodeExists(node),
      ) ?? 0;
    if (grace > 0) return this.deleteGracefully(definition, existing, grace, policy, options);
    if (definition.gracePeriod && !existing.metadata.deletionTimestamp && !options.dryRun) {
      // A kind with graceful deletion is first marked (grace 0), then removed: watchers see
      // MODIFIED with deletionTimestamp before DELETED, as from a real server.
      const marked: KubeObject = {
        ...existing,
        metadata: {
          ...existing.metadata,
          deletionTimestamp: metaTime(),
          deletionGracePeriodSeconds: 0,
        },
      };
      existing = this.store.commit(definition, 'MODIFIED', marked, existing);
    }
    const finalizers = this.deletionFinalizers(existing, policy);
    if (finalizers.length > 0) {
      if (
        existing.metadata.deletionTimestamp &&
        jsonEqual(finalizers, existing.metadata.finalizers)
      ) {
        return { object: existing, deleted: false };
      }
      const marked: KubeObject = {
        ...existing,
        metadata: {
          ...existing.metadata,
          deletionTimestamp: existing.metadata.deletionTimestamp ?? metaTime(),
          deletionGracePeriodSeconds: 0,
          finalizers,
        },
      };
      if (options.dryRun) return { object: marked, deleted: false };
      const stored = this.store.commit(definition, 'MODIFIED', marked, existing);
      this.deletionWork();
      return { object: stored, deleted: false };
    }
    if (options.dryRun) return { object: existing, deleted: true };
    const removed = this.store.commit(definition, 'DELETED', { ...existing }, existing);
    this.deletionWork();
    return { object: removed, deleted: true };
  }

  private nodeExists(name: string): boolean {
    const nodes = findResource('', 'v1', 'nodes');
    return nodes !== undefined && this.store.get(nodes, undefined, name) !== undefined;
  }

  /**
   * Graceful deletion (pods on a node): the object gets deletionTimestamp and
   * deletionGracePeriodSeconds and stays until its kubelet (our node agent) deletes it with
   * grace 0. If nothing does by the end of the grace period, the sim finishes the delete
   * itself, so a pod on a node without an agent cannot hang in Terminating.
   */
  private deleteGracefully(
    definition: ResourceDefinition,
    existing: KubeObject,
    grace: number,
    policy: PropagationPolicy,
    options: DeleteOptions,
  ): DeleteResult {
    const pending = existing.metadata.deletionGracePeriodSeconds;
    if (existing.metadata.deletionTimestamp && pending !== undefined && pending <= grace) {
      return { object: existing, deleted: false };
    }
    const finalizers = this.deletionFinalizers(existing, policy);
    const metadata: ObjectMeta = {
      ...existing.metadata,
      deletionTimestamp: metaTime(new Date(Date.now() + grace * 1000)),
      deletionGracePeriodSeconds: grace,
    };
    if (finalizers.length > 0) metadata.finalizers = finalizers;
    const marked: KubeObject = { ...existing, metadata };
    if (options.dryRun) return { object: marked, deleted: false };
    const stored = this.store.commit(definition, 'MODIFIED', marked, existing);
    if (finalizers.length > 0) this.deletionWork();
    this.finishAfter(definition, existing, grace * 1000, policy);
    return { object: stored, deleted: false };
  }

  /**
   * Deletes `object` with grace 0 in `delayMs` unless something did first (its kubelet), or it
   * was replaced by one of the same name (another uid). Replaces a timer set for it before.
   */
  private finishAfter(
    definition: ResourceDefinition,
    object: KubeObject,
    delayMs: number,
    policy?: PropagationPolicy,
  ): void {
    const uid = object.metadata.uid ?? '';
    const { namespace, name = '' } = object.metadata;
    const previousTimer = this.graceTimers.get(uid);
    if (previousTimer) clearTimeout(previousTimer);
    const timer = setTimeout(() => {
      this.graceTimers.delete(uid);
      const current = this.store.get(definition, namespace, name);
      if (current?.metadata.uid === uid) {
        this.delete(definition, namespace, name, {
          dryRun: false,
          gracePeriodSeconds: 0,
          ...(policy ? { propagationPolicy: policy } : {}),
        });
      }
    }, delayMs);
    timer.unref();
    this.graceTimers.set(uid, timer);
  }

  /** A namespace is only marked Terminating here; the namespace controller empties and removes it. */
  private deleteNamespace(
    definition: ResourceDefinition,
    existing: KubeObject,
    options: DeleteOptions,
  ): DeleteResult {
    const name = existing.metadata.name ?? '';
    if (PROTECTED_NAMESPACES.has(name)) {
      throw new ApiError(
        403,
        'Forbidden',
        `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        {
          name,
          kind: 'namespaces',
        },
      );
    }
    if (existing.metadata.deletionTimestamp) return { object: existing, deleted: false };
    const terminating: KubeObject = {
      ...existing,
      metadata: { ...existing.metadata, deletionTimestamp: metaTime() },
      status: { phase: 'Terminating' },
    };
    if (options.dryRun) return { object: terminating, deleted: false };
    const stored = this.store.commit(definition, 'MODIFIED', terminating, existing);
    this.deletionWork();
    return { object: stored, deleted: false };
  }

  deleteCollection(
    definition: ResourceDefinition,
    namespace: string | undefined,
    listOptions: ListOptions,
    options: DeleteOptions,
  ): StatusObject {
    const { items } = this.reads.list(definition, namespace, {
      ...listOptions,
      limit: undefined,
      continueToken: undefined,
    });
    for (const item of items) {
      if (this.store.get(definition, item.metadata.namespace, item.metadata.name ?? '')) {
        this.delete(definition, item.metadata.namespace, item.metadata.name ?? '', {
          ...options,
          preconditions: undefined,
        });
      }
    }
    return successStatus();
  }

  /**
   * The finalizers an object keeps while it is deleted with `policy`: a Foreground delete waits
   * for its dependents to go, an Orphan delete (of an object with dependents) for the garbage
   * collector to take its ownerReferences off them.
   */
  private deletionFinalizers(existing: KubeObject, policy: PropagationPolicy): string[] {
    const finalizers = [...(existing.metadata.finalizers ?? [])];
    const add = (finalizer: string) => {
      if (!finalizers.includes(finalizer)) finalizers.push(finalizer);
    };
    if (policy === 'Foreground') add(FOREGROUND_FINALIZER);
    if (policy === 'Orphan' && this.store.dependentsOf(existing.metadata.uid ?? '').length > 0)
      add(ORPHAN_FINALIZER);
    return finalizers;
  }

  /**
   * After loading a state file: finish graceful deletions whose grace period runs out (or
   * already has). The garbage collector and namespace controller pick up the rest when they
   * start, as kube-controller-manager's do after a restart.
   */
  resumeAfterRestore(): void {
    for (const definition of this.store.definitions()) {
      for (const object of [...this.store.state(definition).objects.values()]) {
        const grace = object.metadata.deletionGracePeriodSeconds ?? 0;
        const deadline = Date.parse(object.metadata.deletionTimestamp ?? '');
        if (grace <= 0 || Number.isNaN(deadline)) continue;
        this.finishAfter(definition, object, Math.max(0, deadline - Date.now()));
      }
    }
  }

  stop(): void {
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
    this.deletionWatchers.clear();
  }
}
