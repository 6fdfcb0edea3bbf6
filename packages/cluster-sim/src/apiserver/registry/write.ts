/**
 * create, update (of an object or its status) and patch (JSON, merge, strategic merge, apply):
 * each checks everything before it commits, so a failed write changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { cloneJson, isRecord, jsonEqual, type KubeObject, metaTime } from '../kube-object.js';
import { invalidValue } from '../object-rules.js';
import type { ObjectStore } from '../object-store.js';
import { applyConfiguration, jsonPatch, mergePatch, strategicMerge } from '../patch.js';
import type { ResourceDefinition } from '../resource-table.js';
import { ApiError, alreadyExists, badRequest, invalid, notFound } from '../status.js';
import { namespaceDefinition } from './namespaces.js';
import {
  checkResourceVersion,
  objectFromBody,
  placeInNamespace,
  pruneFields,
  validateObject,
  withTypeMeta,
} from './object-input.js';
import type { PatchType, WriteOptions, WriteTarget } from './options.js';
import type { ReadVerbs } from './read.js';

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The five characters generateName appends, from the alphabet of apimachinery's rand.String. */
function randomSuffix(): string {
  let suffix = '';
  for (let i = 0; i < 5; i += 1) {
    suffix += NAME_SUFFIX_ALPHABET[Math.floor(Math.random() * NAME_SUFFIX_ALPHABET.length)];
  }
  return suffix;
}

/**
 * What a write leaves to deletion (`deletion.ts`): declared here, where it is used, so writes
 * and deletion do not import each other.
 */
export interface DeletionHooks {
  /** After a create: a dependent created for an owner that is gone or going is collector work. */
  afterCreate(object: KubeObject): void;
  /** Commits an update; one that takes the last finalizer off an object being deleted completes the delete. */
  commitUpdate(definition: ResourceDefinition, next: KubeObject, existing: KubeObject): KubeObject;
}

export class WriteVerbs {
  constructor(
    private readonly store: ObjectStore,
    private readonly reads: ReadVerbs,
    private readonly deletion: DeletionHooks,
  ) {}

  create(
    definition: ResourceDefinition,
    namespace: string | undefined,
    body: unknown,
    options: WriteOptions,
  ): KubeObject {
    const object = objectFromBody(definition, body);
    pruneFields(definition, object, options);
    placeInNamespace(definition, namespace, object);
    const metadata = object.metadata;
    if (!metadata.name && metadata.generateName)
      metadata.name = `${metadata.generateName}${randomSuffix()}`;
    if (definition.namespaced && namespace !== undefined) {
      const owningNamespace = this.store.get(namespaceDefinition(), undefined, namespace);
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
    metadata.creationTimestamp = metaTime();
    if (definition.tracksGeneration) metadata.generation = 1;
    else delete metadata.generation;
    if (definition.statusOnCreate === 'replace') {
      const status = definition.initialStatus?.(object);
      if (status === undefined) delete object.status;
      else object.status = status;
    }
    definition.defaults?.(object);
    validateObject(definition, object, undefined);
    if (this.store.get(definition, namespace, metadata.name ?? '')) {
      throw alreadyExists(definition.group, definition.plural, metadata.name ?? '');
    }
    const typed = withTypeMeta(definition, object);
    if (options.dryRun) return typed;
    const created = this.store.commit(definition, 'ADDED', typed, undefined);
    this.deletion.afterCreate(typed);
    return created;
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
    subresource: WriteTarget = 'main',
  ): KubeObject {
    const incoming = objectFromBody(definition, body);
    pruneFields(definition, incoming, options);
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
    const existing = this.reads.get(definition, namespace, name);
    if (!definition.unconditionalUpdate && !incoming.metadata.resourceVersion) {
      // Custom resources refuse blind updates: a PUT must say which version it replaces.
      throw invalid(definition.group, definition.plural, name, [
        invalidValue('metadata.resourceVersion', 0, 'must be specified for an update'),
      ]);
    }
    checkResourceVersion(definition, existing, incoming.metadata.resourceVersion);
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
    validateObject(definition, next, existing);
    const typed = withTypeMeta(definition, next);
    // A no-op update keeps the resourceVersion and sends no watch event, as on a real server.
    if (jsonEqual(typed, existing) || options.dryRun) return options.dryRun ? typed : existing;
    return this.deletion.commitUpdate(definition, typed, existing);
  }

  patch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions & { force?: boolean },
    subresource: WriteTarget = 'main',
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
        const applied = objectFromBody(definition, patch);
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
      const applied = objectFromBody(definition, patch);
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
}
