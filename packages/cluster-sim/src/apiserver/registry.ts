/**
 * The API operations (create, get, list, update, patch, delete, watch, scale, binding) over the
 * object store, independent of HTTP: each either returns the result or throws an ApiError
 * before anything is committed, so a failed request changes nothing.
 *
 * `Registry` is the one object callers hold (handlers/, watch.ts, the controller manager, the
 * server); each job is a module of `registry/`, and a method here only hands over to it, with
 * that module's parameter list:
 * - `read.ts` get and list, `write.ts` create, update (status too) and patch;
 * - `deletion.ts` delete, delete of a collection, graceful deletion, finalizers, and the hooks
 *   the garbage collector and namespace controller hear of work through;
 * - `subresources.ts` scale and binding;
 * - `watch-window.ts` watch and reads at an older resourceVersion (continue tokens, 410);
 * - `object-input.ts`, `object-filter.ts`, `namespaces.ts`, `options.ts` what those share.
 */
import type { ObjectStore } from './object-store.js';
import { Deletion } from './registry/deletion.js';
import { DEFAULT_NAMESPACES, namespaceDefinition } from './registry/namespaces.js';
import { ReadVerbs } from './registry/read.js';
import { Subresources } from './registry/subresources.js';
import { WatchWindow } from './registry/watch-window.js';
import { WriteVerbs } from './registry/write.js';
import type { ResourceDefinition } from './resource-table.js';

export {
  type DeleteResult,
  FOREGROUND_FINALIZER,
  ORPHAN_FINALIZER,
} from './registry/deletion.js';
export { DEFAULT_NAMESPACES } from './registry/namespaces.js';
export type {
  DeleteOptions,
  FieldValidation,
  ListOptions,
  ListResult,
  PatchType,
  PropagationPolicy,
  WatchEvent,
  WatchOptions,
  WatchStart,
  WriteOptions,
  WriteTarget,
} from './registry/options.js';

export class Registry {
  private readonly window: WatchWindow;
  private readonly reads: ReadVerbs;
  private readonly deletion: Deletion;
  private readonly writes: WriteVerbs;
  private readonly subresources: Subresources;

  constructor(readonly store: ObjectStore) {
    this.window = new WatchWindow(store);
    this.reads = new ReadVerbs(store, this.window);
    this.deletion = new Deletion(store, this.reads);
    this.writes = new WriteVerbs(store, this.reads, this.deletion);
    this.subresources = new Subresources(store, this.reads, this.writes);
  }

  /** See `Deletion.watchDeletions`: how the controller manager hears of deletion work. */
  watchDeletions(...args: Parameters<Deletion['watchDeletions']>) {
    return this.deletion.watchDeletions(...args);
  }

  namespaceDefinition(): ResourceDefinition {
    return namespaceDefinition();
  }

  /** default, kube-system, kube-public and kube-node-lease exist in every cluster. */
  ensureDefaultNamespaces(): void {
    const definition = namespaceDefinition();
    for (const name of DEFAULT_NAMESPACES) {
      if (!this.store.get(definition, undefined, name)) {
        this.create(definition, undefined, { metadata: { name } }, { dryRun: false });
      }
    }
  }

  get(...args: Parameters<ReadVerbs['get']>) {
    return this.reads.get(...args);
  }

  list(...args: Parameters<ReadVerbs['list']>) {
    return this.reads.list(...args);
  }

  create(...args: Parameters<WriteVerbs['create']>) {
    return this.writes.create(...args);
  }

  update(...args: Parameters<WriteVerbs['update']>) {
    return this.writes.update(...args);
  }

  patch(...args: Parameters<WriteVerbs['patch']>) {
    return this.writes.patch(...args);
  }

  delete(...args: Parameters<Deletion['delete']>) {
    return this.deletion.delete(...args);
  }

  deleteCollection(...args: Parameters<Deletion['deleteCollection']>) {
    return this.deletion.deleteCollection(...args);
  }

  /** See `Deletion.resumeAfterRestore`: graceful deletions pending in a loaded state file. */
  resumeAfterRestore(): void {
    this.deletion.resumeAfterRestore();
  }

  /** Clears the grace-period timers and the deletion watchers. */
  stop(): void {
    this.deletion.stop();
  }

  scale(...args: Parameters<Subresources['scale']>) {
    return this.subresources.scale(...args);
  }

  updateScale(...args: Parameters<Subresources['updateScale']>) {
    return this.subresources.updateScale(...args);
  }

  patchScale(...args: Parameters<Subresources['patchScale']>) {
    return this.subresources.patchScale(...args);
  }

  bind(...args: Parameters<Subresources['bind']>) {
    return this.subresources.bind(...args);
  }

  watch(...args: Parameters<WatchWindow['watch']>) {
    return this.window.watch(...args);
  }
}
