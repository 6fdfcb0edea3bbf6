/**
 * What a write's body must be before anything is stored: a JSON object of the URL's kind and
 * version, in the URL's namespace, with only fields the kind has, valid for the kind, and (when
 * it names one) of the stored resourceVersion. Each check throws the ApiError a kube-apiserver
 * answers with, so a failed write changes nothing.
 */
import { pruneUnknownFields } from '../field-validation.js';
import {
  cloneJson,
  isRecord,
  type JsonRecord,
  type KubeObject,
  type ObjectMeta,
} from '../kube-object.js';
import { validateObjectMeta } from '../object-rules.js';
import { apiVersionOf, type ResourceDefinition } from '../resource-table.js';
import { badRequest, conflict, invalid } from '../status.js';
import type { WriteOptions } from './options.js';

/** A copy of the body as an object of the kind, or a 400 when it is not one. */
export function objectFromBody(
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
  const object: KubeObject = { ...cloneJson(body), metadata: cloneJson(metadata) as ObjectMeta };
  definition.decode?.(object);
  return object;
}

/** A subresource's body (a Scale, a Binding): a JSON object of that kind, or of none named. */
export function checkSubresourceBody(body: unknown, kind: string): asserts body is JsonRecord {
  if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
  if (body.kind !== undefined && body.kind !== kind) {
    throw badRequest(
      `${String(body.kind)} cannot be handled as a ${kind}: the kind in the data does not match the resource at this URL`,
    );
  }
}

/** Puts the object in the request's namespace (none for cluster-scoped kinds); another one is a 400. */
export function placeInNamespace(
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

/** The object-meta and per-kind rules (object-rules.ts, the resource table): 422 with every cause. */
export function validateObject(
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
export function pruneFields(
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

/** Optimistic concurrency: a write that names a resourceVersion other than the stored one is a 409. */
export function checkResourceVersion(
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

/** Orders apiVersion, kind, metadata first, as real servers serialise objects. */
export function withTypeMeta(definition: ResourceDefinition, object: KubeObject): KubeObject {
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = object;
  return { apiVersion: apiVersionOf(definition), kind: definition.kind, metadata, ...rest };
}
