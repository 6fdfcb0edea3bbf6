/**
 * The in-memory object store: objects per resource, one global resourceVersion counter (etcd's
 * revision), a bounded window of recent events per resource for watches and consistent
 * pagination, and the watchers to notify. All writes go through `commit`, synchronously, so
 * a watcher never misses or reorders an event.
 */
import type { KubeObject } from './kube-object.js';
import { apiVersionOf, RESOURCES, type ResourceDefinition } from './resource-table.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  resourceVersion: number;
  type: WatchEventType;
  object: KubeObject;
  /** The object before this change (MODIFIED/DELETED), to rebuild older snapshots. */
  previous: KubeObject | undefined;
}

export interface StoreWatcher {
  /** Called synchronously for every committed event of the watcher's resource. */
  onEvent(event: StoredEvent): void;
}

export class ResourceState {
  readonly objects = new Map<string, KubeObject>();
  readonly events: StoredEvent[] = [];
  /** Events at or below this resourceVersion may be gone from `events`: older requests get 410. */
  compactedResourceVersion = 0;
  readonly watchers = new Set<StoreWatcher>();

  constructor(readonly definition: ResourceDefinition) {}
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export interface StoreSnapshot {
  resourceVersion: string;
  objects: KubeObject[];
}

export class ObjectStore {
  private counter: number;
  private readonly states = new Map<ResourceDefinition, ResourceState>();
  /**
   * The garbage collector's graph (kube-controller-manager keeps one too): every stored
   * object by uid, owner uid → its dependents' uids, and the objects carrying finalizers, so a
   * collection pass looks at owners and finalizing objects instead of walking every object.
   */
  private readonly byUid = new Map<string, { definition: ResourceDefinition; key: string }>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly finalizing = new Set<string>();
  /** Restored objects of kinds this server does not serve, written back unchanged. */
  private readonly unserved: KubeObject[] = [];
  /** Called after every commit, e.g. to schedule a state-file write. */
  onChange: (() => void) | undefined;

  constructor(readonly eventWindow: number) {
    this.counter = 1;
    for (const definition of RESOURCES) this.states.set(definition, new ResourceState(definition));
  }

  get resourceVersion(): number {
    return this.counter;
  }

  definitions(): ResourceDefinition[] {
    return [...this.states.keys()];
  }

  state(definition: ResourceDefinition): ResourceState {
    const state = this.states.get(definition);
    if (!state) throw new Error(`resource ${definition.plural} is not in the resource table`);
    return state;
  }

  get(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
  ): KubeObject | undefined {
    return this.state(definition).objects.get(
      objectKey(definition.namespaced ? namespace : undefined, name),
    );
  }

  /** Stores a change under the next resourceVersion and notifies the watchers. */
  commit(
    definition: ResourceDefinition,
    type: WatchEventType,
    object: KubeObject,
    previous: KubeObject | undefined,
  ): KubeObject {
    const state = this.state(definition);
    this.counter += 1;
    const resourceVersion = this.counter;
    const stored: KubeObject = {
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(resourceVersion) },
    };
    const key = objectKey(
      definition.namespaced ? stored.metadata.namespace : undefined,
      stored.metadata.name ?? '',
    );
    const replaced = state.objects.get(key);
    if (replaced) this.unindex(replaced);
    if (type === 'DELETED') state.objects.delete(key);
    else {
      state.objects.set(key, stored);
      this.index(definition, key, stored);
    }
    const event: StoredEvent = { resourceVersion, type, object: stored, previous };
    state.events.push(event);
    if (state.events.length > this.eventWindow) {
      const evicted = state.events.splice(0, state.events.length - this.eventWindow);
      const last = evicted[evicted.length - 1];
      if (last) state.compactedResourceVersion = last.resourceVersion;
    }
    for (const watcher of state.watchers) watcher.onEvent(event);
    this.onChange?.();
    return stored;
  }

  private index(definition: ResourceDefinition, key: string, object: KubeObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    this.byUid.set(uid, { definition, key });
    for (const reference of object.metadata.ownerReferences ?? []) {
      let dependents = this.dependents.get(reference.uid);
      if (!dependents) {
        dependents = new Set();
        this.dependents.set(reference.uid, dependents);
      }
      dependents.add(uid);
    }
    if ((object.metadata.finalizers?.length ?? 0) > 0) this.finalizing.add(uid);
  }

  private unindex(object: KubeObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    this.byUid.delete(uid);
    for (const reference of object.metadata.ownerReferences ?? []) {
      const dependents = this.dependents.get(reference.uid);
      dependents?.delete(uid);
      if (dependents?.size === 0) this.dependents.delete(reference.uid);
    }
    this.finalizing.delete(uid);
  }

  /** The stored object with this uid. */
  findByUid(uid: string): { definition: ResourceDefinition; object: KubeObject } | undefined {
    const place = this.byUid.get(uid);
    const object = place && this.state(place.definition).objects.get(place.key);
    return place && object ? { definition: place.definition, object } : undefined;
  }

  /** Uids of the objects whose ownerReferences name `ownerUid` (a copy: safe to commit while walking). */
  dependentsOf(ownerUid: string): string[] {
    return [...(this.dependents.get(ownerUid) ?? [])];
  }

  /** Uids named as an owner by some stored object, whether or not that owner still exists. */
  ownerUids(): string[] {
    return [...this.dependents.keys()];
  }

  /** Uids of the stored objects that carry finalizers. */
  finalizingUids(): string[] {
    return [...this.finalizing];
  }

  /**
   * The objects of a resource as they were at `resourceVersion`, rebuilt by undoing the events
   * after it; undefined when the window no longer reaches back that far.
   */
  objectsAt(
    definition: ResourceDefinition,
    resourceVersion: number,
  ): Map<string, KubeObject> | undefined {
    const state = this.state(definition);
    if (resourceVersion < state.compactedResourceVersion) return undefined;
    const objects = new Map(state.objects);
    for (let i = state.events.length - 1; i >= 0; i -= 1) {
      const event = state.events[i];
      if (!event || event.resourceVersion <= resourceVersion) break;
      const key = objectKey(
        definition.namespaced ? event.object.metadata.namespace : undefined,
        event.object.metadata.name ?? '',
      );
      if (event.type === 'ADDED') objects.delete(key);
      else if (event.previous) objects.set(key, event.previous);
    }
    return objects;
  }

  snapshot(): StoreSnapshot {
    const objects: KubeObject[] = [];
    for (const state of this.states.values()) {
      const apiVersion = apiVersionOf(state.definition);
      for (const object of state.objects.values()) {
        objects.push({ ...object, apiVersion, kind: state.definition.kind });
      }
    }
    objects.push(...this.unserved);
    return { resourceVersion: String(this.counter), objects };
  }

  /** `Kind apiVersion` of each kind kept unserved from the state file, with how many of it. */
  unservedKinds(): Map<string, number> {
    const kinds = new Map<string, number>();
    for (const object of this.unserved) {
      const kind = `${object.kind} ${object.apiVersion}`;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    return kinds;
  }

  /**
   * Loads a snapshot as the store's starting state. No events survive a restart, so watches
   * and continue tokens from before it are answered with 410, as after an etcd compaction.
   * Objects of kinds without a definition are kept aside as they are (a real cluster's
   * ConfigMaps in a copied file must survive the next write).
   */
  restore(
    snapshot: StoreSnapshot,
    findDefinition: (object: KubeObject) => ResourceDefinition | undefined,
  ): void {
    const counter = Number(snapshot.resourceVersion);
    if (Number.isFinite(counter) && counter > this.counter) this.counter = counter;
    for (const object of snapshot.objects) {
      const objectVersion = Number(object.metadata.resourceVersion);
      if (Number.isFinite(objectVersion) && objectVersion > this.counter)
        this.counter = objectVersion;
      const definition = findDefinition(object);
      if (!definition) {
        this.unserved.push(object);
        continue;
      }
      const key = objectKey(
        definition.namespaced ? object.metadata.namespace : undefined,
        object.metadata.name ?? '',
      );
      const state = this.state(definition);
      const replaced = state.objects.get(key);
      if (replaced) this.unindex(replaced);
      state.objects.set(key, object);
      this.index(definition, key, object);
    }
    for (const state of this.states.values()) state.compactedResourceVersion = this.counter;
  }
}
