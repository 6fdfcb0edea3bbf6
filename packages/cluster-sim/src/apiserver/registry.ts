/**
 * The API operations (create, get, list, update, patch, delete, watch, scale, binding) over the
 * object store, independent of HTTP: each either returns the result or throws an ApiError
 * before anything is committed, so a failed request changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { pruneUnknownFields } from './field-validation.js';
import {
  cloneJson,
  isRecord,
  type JsonRecord,
  jsonEqual,
  type KubeObject,
  numberAt,
  type ObjectMeta,
  recordAt,
  valueAt,
} from './kube-object.js';
import { invalidValue, validateObjectMeta } from './object-rules.js';
import type { ObjectStore, StoredEvent, WatchEventType } from './object-store.js';
import { applyConfiguration, jsonPatch, mergePatch, strategicMerge } from './patch.js';
import {
  apiVersionOf,
  findResource,
  findResourceByKind,
  type ResourceDefinition,
} from './resource-table.js';
import {
  type FieldRequirement,
  formatLabelSelector,
  type LabelSelector,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  selectorFromLabelSelectorObject,
} from './selectors.js';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  type StatusObject,
  successStatus,
} from './status.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** What to do about fields the kind does not have (absent: Ignore, for in-process callers). */
  fieldValidation?: FieldValidation;
  /** Collects `unknown field "…"` warnings under fieldValidation=Warn. */
  warnings?: string[];
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: PropagationPolicy;
  /** Requested grace period; absent means the kind's default (pods: terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
}

export interface WatchEvent {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: KubeObject | StatusObject;
}

export type WatchStart = { expired: StatusObject } | { stop(): void };

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);
export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
/** The finalizer a Foreground delete puts on the owner until its dependents are gone. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer an Orphan delete puts on an owner until its dependents no longer name it. */
export const ORPHAN_FINALIZER = 'orphan';

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i += 1) {
    suffix += NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)];
  }
  return suffix;
}

/** Orders apiVersion, kind, metadata first, as real servers serialise objects. */
function withTypeMeta(definition: ResourceDefinition, object: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = object;
  return { apiVersion: apiVersionOf(definition), kind: definition.kind, metadata, ...rest };
}

function fieldValue(object: KubeObject, field: string): string {
  if (field === 'source') return String(valueAt(object, ['source', 'component']) ?? '');
  const value = valueAt(object, field.split('.'));
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

interface ContinueToken {
  resourceVersion: number;
  start: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(
    JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.resourceVersion, start: token.start }),
  ).toString('base64url');
}

function decodeContinue(encoded: string): ContinueToken {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (isRecord(decoded) && typeof decoded.rv === 'number' && typeof decoded.start === 'string') {
      return { resourceVersion: decoded.rv, start: decoded.start };
    }
  } catch {
    // falls through to the BadRequest below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

export class Registry {
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  private readonly deletionWatchers = new Set<() => void>();

  constructor(readonly store: ObjectStore) {}

  /**
   * Tells `watcher` after every write that may leave work for the garbage collector or the
   * namespace controller (`../controller-manager/`): a delete, a finished finalizer, a namespace
   * marked Terminating, a dependent created for an owner that is gone or going. Returns the
   * function that stops telling it.
   */
  watchDeletions(watcher: () => void): () => void {
    this.deletionWatchers.add(watcher);
    return () => this.deletionWatchers.delete(watcher);
  }

  private deletionWork(): void {
    for (const watcher of this.deletionWatchers) watcher();
  }

  namespaceDefinition(): ResourceDefinition {
    const definition = findResource('', 'v1', 'namespaces');
    if (!definition) throw new Error('namespaces missing from the resource table');
    return definition;
  }

  /** default, kube-system, kube-public and kube-node-lease exist in every cluster. */
  ensureDefaultNamespaces(): void {
    const definition = this.namespaceDefinition();
    for (const name of DEFAULT_NAMESPACES) {
      if (!this.store.get(definition, undefined, name)) {
        this.create(definition, undefined, { metadata: { name } }, { dryRun: false });
      }
    }
  }

  get(definition: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(definition, namespace, name);
    if (!object) throw notFound(definition.group, definition.plural, name);
    return object;
  }

  private filterFor(
    definition: ResourceDefinition,
    namespace: string | undefined,
    labelSelector: string | undefined,
    fieldSelector: string | undefined,
  ): (object: KubeObject) => boolean {
    const labels: LabelSelector = parseLabelSelector(labelSelector);
    const supported = new Set(['metadata.name', ...definition.fieldLabels]);
    if (definition.namespaced) supported.add('metadata.namespace');
    const fields: FieldRequirement[] = parseFieldSelector(fieldSelector, supported);
    return (object) =>
      (!definition.namespaced ||
        namespace === undefined ||
        object.metadata.namespace === namespace) &&
      matchesLabels(labels, object.metadata.labels) &&
      matchesFields(fields, (field) => fieldValue(object, field));
  }

  list(
    definition: ResourceDefinition,
    namespace: string | undefined,
    options: ListOptions,
  ): ListResult {
    const matches = this.filterFor(
      definition,
      namespace,
      options.labelSelector,
      options.fieldSelector,
    );
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    let snapshotVersion = this.store.resourceVersion;
    let start = '';
    let objects: Map<string, KubeObject> | undefined = this.store.state(definition).objects;
    if (options.continueToken) {
      const token = decodeContinue(options.continueToken);
      snapshotVersion = token.resourceVersion;
      start = token.start;
      objects = this.store.objectsAt(definition, snapshotVersion);
      if (!objects) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response.',
        );
      }
    } else if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) {
      snapshotVersion = Number(options.resourceVersion);
      if (!Number.isInteger(snapshotVersion))
        throw badRequest(`invalid resource version "${options.resourceVersion}"`);
      objects = this.store.objectsAt(definition, snapshotVersion);
      if (!objects)
        throw new ApiError(410, 'Expired', `too old resource version: ${options.resourceVersion}`);
    }
    const keys = [...objects.keys()].filter((key) => key > start).sort();
    const items: KubeObject[] = [];
    let lastKey = '';
    let remaining = 0;
    for (const key of keys) {
      const object = objects.get(key);
      if (!object || !matches(object)) continue;
      if (limit !== undefined && items.length >= limit) {
        remaining += 1;
        continue;
      }
      items.push(object);
      lastKey = key;
    }
    const result: ListResult = { items, resourceVersion: String(snapshotVersion) };
    if (remaining > 0) {
      result.continueToken = encodeContinue({ resourceVersion: snapshotVersion, start: lastKey });
      result.remainingItemCount = remaining;
    }
    return result;
  }

  private checkBodyType(
    definition: ResourceDefinition,
    body: unknown,
    expectedKind = definition.kind,
    expectedApiVersion = apiVersionOf(definition),
  ): KubeObject {
    if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
    const { apiVersion, kind } = body;
    if (apiVersion !== undefined && apiVersion !== expectedApiVersion) {
      throw badRequest(
        `the API version in the data (${String(apiVersion)}) does not match the expected API version (${expectedApiVersion})`,
      );
    }
    if (kind !== undefined && kind !== expectedKind) {
      throw badRequest(
        `${String(kind)} in version "${expectedApiVersion}" cannot be handled as a ${expectedKind}: the kind in the data does not match the resource at this URL`,
      );
    }
    const metadata = body.metadata ?? {};
    if (!isRecord(metadata)) throw badRequest('metadata must be an object');
    return { ...cloneJson(body), metadata: cloneJson(metadata) as ObjectMeta };
  }

  private checkNamespace(
    definition: ResourceDefinition,
    namespace: string | undefined,
    object: KubeObject,
  ): void {
    if (!definition.namespaced) {
      delete object.metadata.namespace;
      return;
    }
    if (
      object.metadata.namespace !== undefined &&
      object.metadata.namespace !== '' &&
      object.metadata.namespace !== namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    object.metadata.namespace = namespace;
  }

  private validate(
    definition: ResourceDefinition,
    object: KubeObject,
    old: KubeObject | undefined,
  ): void {
    const causes = [
      ...validateObjectMeta(object, definition.nameRule),
      ...(definition.validate?.(object, old) ?? []),
    ];
    if (causes.length > 0) {
      throw invalid(
        definition.group,
        definition.kind,
        object.metadata.name ?? object.metadata.generateName ?? '',
        causes,
      );
    }
  }

  /** Drops fields the kind does not have; fieldValidation Strict refuses them (400), Warn reports them. */
  private checkFields(
    definition: ResourceDefinition,
    body: KubeObject,
    options: WriteOptions,
  ): void {
    const validation = options.fieldValidation ?? 'Ignore';
    const unknown = pruneUnknownFields(apiVersionOf(definition), definition.kind, body);
    if (unknown.length === 0 || validation === 'Ignore') return;
    const problems = unknown.map((path) => `unknown field "${path}"`);
    if (validation === 'Strict') {
      throw badRequest(
        `${definition.kind} in version "${definition.version}" cannot be handled as a ${definition.kind}: strict decoding error: ${problems.join(', ')}`,
      );
    }
    options.warnings?.push(...problems);
  }

  create(
    definition: ResourceDefinition,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions,
  ): KubeObject {
    const object = this.checkBodyType(definition, body);
    this.checkFields(definition, object, options);
    this.checkNamespace(definition, namespace, object);
    const metadata = object.metadata;
    if (!metadata.name && metadata.generateName)
      metadata.name = `${metadata.generateName}${randomSuffix()}`;
    if (definition.namespaced && namespace !== undefined) {
      const owningNamespace = this.store.get(this.namespaceDefinition(), undefined, namespace);
      if (!owningNamespace) throw notFound('', 'namespaces', namespace);
      if (owningNamespace.metadata.deletionTimestamp) {
        throw new ApiError(
          403,
          'Forbidden',
          `${definition.plural} "${metadata.name ?? ''}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
          { name: metadata.name ?? '', group: definition.group, kind: definition.plural },
        );
      }
    }
    delete metadata.resourceVersion;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.managedFields;
    metadata.uid = randomUUID();
    metadata.creationTimestamp = now();
    if (definition.tracksGeneration) metadata.generation = 1;
    else delete metadata.generation;
    if (definition.statusOnCreate === 'replace') {
      const status = definition.initialStatus?.(object);
      if (status === undefined) delete object.status;
      else object.status = status;
    }
    definition.defaults?.(object);
    this.validate(definition, object, undefined);
    if (this.store.get(definition, namespace, metadata.name ?? '')) {
      throw alreadyExists(definition.group, definition.plural, metadata.name ?? '');
    }
    const typed = withTypeMeta(definition, object);
    if (options.dryRun) return typed;
    const created = this.store.commit(definition, 'ADDED', typed, undefined);
    // Like the real garbage collector, which watches every object: a dependent created after
    // its owner went (a controller acting on a stale cache) is collected too.
    if (this.ownerGoneOrGoing(typed)) this.deletionWork();
    return created;
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

  private checkResourceVersion(
    definition: ResourceDefinition,
    existing: KubeObject,
    requested: string | undefined,
  ): void {
    if (
      requested !== undefined &&
      requested !== '' &&
      requested !== existing.metadata.resourceVersion
    ) {
      throw conflict(
        definition.group,
        definition.plural,
        existing.metadata.name ?? '',
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
  }

  /**
   * PUT: `subresource` "status" takes only status from the body; the main resource takes
   * everything but status (for kinds with a status subresource) and server-owned metadata.
   */
  update(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions,
    subresource: 'main' | 'status' = 'main',
  ): KubeObject {
    const incoming = this.checkBodyType(definition, body);
    this.checkFields(definition, incoming, options);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${String(incoming.metadata.name)}) does not match the name on the URL (${name})`,
      );
    }
    if (
      definition.namespaced &&
      incoming.metadata.namespace &&
      incoming.metadata.namespace !== namespace
    ) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const existing = this.get(definition, namespace, name);
    if (!definition.unconditionalUpdate && !incoming.metadata.resourceVersion) {
      // Custom resources refuse blind updates: a PUT must say which version it replaces.
      throw invalid(definition.group, definition.plural, name, [
        invalidValue('metadata.resourceVersion', 0, 'must be specified for an update'),
      ]);
    }
    this.checkResourceVersion(definition, existing, incoming.metadata.resourceVersion);
    let next: KubeObject;
    if (subresource === 'status') {
      next = { ...cloneJson(existing) };
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      next.metadata = {
        ...incoming.metadata,
        name,
        namespace: existing.metadata.namespace,
        uid: existing.metadata.uid,
        creationTimestamp: existing.metadata.creationTimestamp,
        deletionTimestamp: existing.metadata.deletionTimestamp,
        deletionGracePeriodSeconds: existing.metadata.deletionGracePeriodSeconds,
        generation: existing.metadata.generation,
      };
      for (const key of Object.keys(next.metadata))
        if (next.metadata[key] === undefined) delete next.metadata[key];
      delete next.metadata.managedFields;
      if (definition.statusSubresource) {
        if (existing.status === undefined) delete next.status;
        else next.status = cloneJson(existing.status);
      }
      definition.defaults?.(next);
      if (definition.tracksGeneration && !jsonEqual(next.spec, existing.spec)) {
        next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
      }
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    this.validate(definition, next, existing);
    const typed = withTypeMeta(definition, next);
    // A no-op update keeps the resourceVersion and sends no watch event, as on a real server.
    if (jsonEqual(typed, existing) || options.dryRun) return options.dryRun ? typed : existing;
    // Removing the last finalizer of an object being deleted (with no grace period pending) completes the delete.
    if (
      typed.metadata.deletionTimestamp &&
      (typed.metadata.finalizers ?? []).length === 0 &&
      (typed.metadata.deletionGracePeriodSeconds ?? 0) === 0
    ) {
      const removed = this.store.commit(definition, 'DELETED', typed, existing);
      this.deletionWork();
      return removed;
    }
    return this.store.commit(definition, 'MODIFIED', typed, existing);
  }

  patch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions & { force?: boolean },
    subresource: 'main' | 'status' = 'main',
  ): KubeObject {
    if (patchType === 'strategic' && !definition.strategicMergePatch) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
      );
    }
    if (patchType !== 'json' && !isRecord(patch))
      throw badRequest('the patch must be a JSON object');
    const existing = this.store.get(definition, namespace, name);
    if (!existing) {
      if (patchType === 'apply' && subresource === 'main') {
        const applied = this.checkBodyType(definition, patch);
        if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
          throw badRequest(
            `the name of the object (${String(applied.metadata.name)}) does not match the name on the URL (${name})`,
          );
        }
        applied.metadata.name = name;
        return this.create(definition, namespace, applied, options);
      }
      throw notFound(definition.group, definition.plural, name);
    }
    if (patchType === 'apply') {
      const applied = this.checkBodyType(definition, patch);
      if (applied.kind === undefined || applied.apiVersion === undefined) {
        throw badRequest('apiVersion and kind must be set in an apply patch');
      }
    }
    let patched: unknown;
    switch (patchType) {
      case 'json':
        patched = jsonPatch(existing, patch);
        break;
      case 'merge':
        patched = mergePatch(existing, patch);
        break;
      case 'strategic':
        patched = strategicMerge(existing, patch);
        break;
      case 'apply':
        patched = applyConfiguration(existing, patch);
        break;
    }
    if (!isRecord(patched) || !isRecord(patched.metadata))
      throw new ApiError(422, 'Invalid', 'the patched object has no metadata');
    return this.update(definition, namespace, name, patched, options, subresource);
  }

  /** Deletes now, or marks for deletion while finalizers (or foreground dependents) remain. */
  delete(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
  ): { object: KubeObject; deleted: boolean } {
    let existing = this.get(definition, namespace, name);
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
        metadata: { ...existing.metadata, deletionTimestamp: now(), deletionGracePeriodSeconds: 0 },
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
          deletionTimestamp: existing.metadata.deletionTimestamp ?? now(),
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
  ): { object: KubeObject; deleted: boolean } {
    const pending = existing.metadata.deletionGracePeriodSeconds;
    if (existing.metadata.deletionTimestamp && pending !== undefined && pending <= grace) {
      return { object: existing, deleted: false };
    }
    const finalizers = this.deletionFinalizers(existing, policy);
    const metadata: ObjectMeta = {
      ...existing.metadata,
      deletionTimestamp: new Date(Date.now() + grace * 1000)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
      deletionGracePeriodSeconds: grace,
    };
    if (finalizers.length > 0) metadata.finalizers = finalizers;
    const marked: KubeObject = { ...existing, metadata };
    if (options.dryRun) return { object: marked, deleted: false };
    const stored = this.store.commit(definition, 'MODIFIED', marked, existing);
    if (finalizers.length > 0) this.deletionWork();
    const uid = existing.metadata.uid ?? '';
    const previousTimer = this.graceTimers.get(uid);
    if (previousTimer) clearTimeout(previousTimer);
    const timer = setTimeout(() => {
      this.graceTimers.delete(uid);
      const current = this.store.get(
        definition,
        existing.metadata.namespace,
        existing.metadata.name ?? '',
      );
      if (current?.metadata.uid === uid) {
        this.delete(definition, existing.metadata.namespace, existing.metadata.name ?? '', {
          dryRun: false,
          gracePeriodSeconds: 0,
          propagationPolicy: policy,
        });
      }
    }, grace * 1000);
    timer.unref();
    this.graceTimers.set(uid, timer);
    return { object: stored, deleted: false };
  }

  private deleteNamespace(
    definition: ResourceDefinition,
    existing: KubeObject,
    options: DeleteOptions,
  ): { object: KubeObject; deleted: boolean } {
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
      metadata: { ...existing.metadata, deletionTimestamp: now() },
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
    const { items } = this.list(definition, namespace, {
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
        const uid = object.metadata.uid ?? '';
        const timer = setTimeout(
          () => {
            this.graceTimers.delete(uid);
            const current = this.store.get(
              definition,
              object.metadata.namespace,
              object.metadata.name ?? '',
            );
            if (current?.metadata.uid === uid) {
              this.delete(definition, object.metadata.namespace, object.metadata.name ?? '', {
                dryRun: false,
                gracePeriodSeconds: 0,
              });
            }
          },
          Math.max(0, deadline - Date.now()),
        );
        timer.unref();
        this.graceTimers.set(uid, timer);
      }
    }
  }

  stop(): void {
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
    this.deletionWatchers.clear();
  }

  scale(definition: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    const object = this.get(definition, namespace, name);
    const selector = selectorFromLabelSelectorObject(recordAt(object, 'spec')?.selector);
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        creationTimestamp: object.metadata.creationTimestamp,
      },
      spec: { replicas: numberAt(object, 'spec', 'replicas') ?? 0 },
      status: {
        replicas: numberAt(object, 'status', 'replicas') ?? 0,
        selector: selector ? formatLabelSelector(selector) : '',
      },
    };
  }

  updateScale(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions,
  ): KubeObject {
    if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
    if (body.kind !== undefined && body.kind !== 'Scale') {
      throw badRequest(
        `${String(body.kind)} cannot be handled as a Scale: the kind in the data does not match the resource at this URL`,
      );
    }
    const replicas = valueAt(body, ['spec', 'replicas']);
    if (
      replicas !== undefined &&
      (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
    ) {
      throw invalid('autoscaling', 'Scale', name, [
        invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'),
      ]);
    }
    const existing = this.get(definition, namespace, name);
    const requested = valueAt(body, ['metadata', 'resourceVersion']);
    this.checkResourceVersion(
      definition,
      existing,
      typeof requested === 'string' ? requested : undefined,
    );
    const next = cloneJson(existing);
    const spec: JsonRecord = isRecord(next.spec) ? next.spec : {};
    spec.replicas = typeof replicas === 'number' ? replicas : 0;
    next.spec = spec;
    this.update(definition, namespace, name, next, options);
    if (options.dryRun) {
      const preview = this.scale(definition, namespace, name);
      return { ...preview, spec: { replicas: spec.replicas } };
    }
    return this.scale(definition, namespace, name);
  }

  patchScale(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions,
  ): KubeObject {
    const current = this.scale(definition, namespace, name);
    let patched: unknown;
    if (patchType === 'json') patched = jsonPatch(current, patch);
    else if (patchType === 'merge') patched = mergePatch(current, patch);
    else patched = strategicMerge(current, patch);
    return this.updateScale(definition, namespace, name, patched, options);
  }

  /** POST pods/<name>/binding: what the scheduler does; a bound pod cannot be bound again. */
  bind(
    pods: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions,
  ): StatusObject {
    if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
    if (body.kind !== undefined && body.kind !== 'Binding') {
      throw badRequest(
        `${String(body.kind)} cannot be handled as a Binding: the kind in the data does not match the resource at this URL`,
      );
    }
    const nodeName = valueAt(body, ['target', 'name']);
    if (typeof nodeName !== 'string' || nodeName === '') {
      throw invalid('', 'Binding', name, [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' },
      ]);
    }
    const pod = this.get(pods, namespace, name);
    // A binding may name the pod's uid: binding a pod that was replaced meanwhile is a conflict.
    const bindingUid = valueAt(body, ['metadata', 'uid']);
    if (typeof bindingUid === 'string' && bindingUid !== '' && bindingUid !== pod.metadata.uid) {
      throw conflict(
        '',
        'pods',
        name,
        `Precondition failed: UID in precondition: ${bindingUid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
      );
    }
    const assigned = recordAt(pod, 'spec')?.nodeName;
    if (typeof assigned === 'string' && assigned !== '') {
      throw conflict('', 'pods', name, `pod ${name} is already assigned to node "${assigned}"`);
    }
    if (pod.metadata.deletionTimestamp) {
      throw conflict(
        '',
        'pods',
        name,
        `pod ${name} is being deleted, cannot be assigned to a host`,
      );
    }
    const bindingAnnotations = recordAt(body, 'metadata', 'annotations') ?? {};
    const next = cloneJson(pod);
    next.spec = { ...recordAt(next, 'spec'), nodeName };
    next.metadata.annotations = { ...next.metadata.annotations };
    for (const [key, value] of Object.entries(bindingAnnotations))
      next.metadata.annotations[key] = String(value);
    const status: JsonRecord = recordAt(next, 'status') ?? {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(
      (condition) => !(isRecord(condition) && condition.type === 'PodScheduled'),
    );
    conditions.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: now(),
    });
    status.conditions = conditions;
    next.status = status;
    if (!options.dryRun) this.store.commit(pods, 'MODIFIED', next, pod);
    return { ...successStatus(), code: 201 };
  }

  /**
   * Starts a watch: replays the events after `resourceVersion` (or the current objects as
   * ADDED when none is given, or "0"), then streams. A version older than the event window
   * answers with the 410 Expired Status a real server sends as an ERROR event.
   */
  watch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    options: WatchOptions,
    send: (event: WatchEvent) => void,
  ): WatchStart {
    const matches = this.filterFor(
      definition,
      namespace,
      options.labelSelector,
      options.fieldSelector,
    );
    const state = this.store.state(definition);
    const requested = options.resourceVersion;
    const fromVersion =
      requested === undefined || requested === '' || requested === '0'
        ? undefined
        : Number(requested);
    if (fromVersion !== undefined && !Number.isInteger(fromVersion)) {
      throw badRequest(`invalid resource version "${requested ?? ''}"`);
    }
    if (fromVersion !== undefined && fromVersion < state.compactedResourceVersion) {
      return {
        expired: new ApiError(
          410,
          'Expired',
          `too old resource version: ${fromVersion} (${state.compactedResourceVersion})`,
        ).toStatus(),
      };
    }
    const deliver = (event: StoredEvent): void => {
      const nowMatches = matches(event.object);
      if (event.type === 'ADDED') {
        if (nowMatches) send({ type: 'ADDED', object: event.object });
        return;
      }
      if (event.type === 'DELETED') {
        if (nowMatches || (event.previous !== undefined && matches(event.previous))) {
          send({ type: 'DELETED', object: event.object });
        }
        return;
      }
      const matchedBefore = event.previous !== undefined && matches(event.previous);
      if (nowMatches) send({ type: matchedBefore ? 'MODIFIED' : 'ADDED', object: event.object });
      else if (matchedBefore) send({ type: 'DELETED', object: event.object });
    };
    if (fromVersion === undefined) {
      const keys = [...state.objects.keys()].sort();
      for (const key of keys) {
        const object = state.objects.get(key);
        if (object && matches(object)) send({ type: 'ADDED', object });
      }
    } else {
      for (const event of state.events) if (event.resourceVersion > fromVersion) deliver(event);
    }
    const watcher = { onEvent: deliver };
    state.watchers.add(watcher);
    return { stop: () => state.watchers.delete(watcher) };
  }
}
