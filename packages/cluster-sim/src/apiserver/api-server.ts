/**
 * The HTTP face of the embedded cluster: Kubernetes REST paths on Fastify, Status objects for
 * every error, server-side Tables for kubectl, and watches streamed as newline-delimited JSON.
 */

import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { startControllerManager } from '../controller-manager/index.js';
import {
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiDocument,
  openApiRoot,
  SERVER_VERSION,
} from './discovery.js';
import { DEFAULT_EVENT_TTL_MS, EventExpiry } from './event-expiry.js';
import { isRecord, type KubeObject } from './kube-object.js';
import { ObjectStore } from './object-store.js';
import type { TableColumn } from './printers.js';
import { decodeKubernetesProtobuf, ProtobufKindUnsupported } from './protobuf.js';
import {
  type DeleteOptions,
  type FieldValidation,
  type ListOptions,
  type PatchType,
  type PropagationPolicy,
  Registry,
  type WatchEvent,
  type WriteOptions,
} from './registry.js';
import {
  findResource,
  findResourceByKind,
  RESOURCES,
  type ResourceDefinition,
} from './resource-table.js';
import { loadStateFile, StateFileWriter } from './state-file.js';
import {
  ApiError,
  badRequest,
  invalid,
  methodNotAllowed,
  type StatusCause,
  successStatus,
} from './status.js';

export interface ApiServerOptions {
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Where the store is kept across restarts; absent: memory only. */
  stateFile?: string;
  /** Largest request body; bigger ones get 413 (kube-apiserver's default is 3 MiB). */
  maxBodyBytes?: number;
  /** Events kept per resource for watches and continue tokens; older versions get 410. */
  watchWindow?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK. */
  bookmarkIntervalMs?: number;
  /**
   * Debounce of state-file writes for changes no request made (GC, event expiry); changes a
   * request made are written before it is answered.
   */
  stateFileDelayMs?: number;
  /** How long an Event is kept after its last write (kube-apiserver's `--event-ttl`, 1 h). */
  eventTtlMs?: number;
  /**
   * Run the garbage collector and namespace controller beside the server (default on), as a
   * cluster's kube-controller-manager would; off, deleted owners leave their dependents and
   * terminating namespaces stay.
   */
  controllerManager?: boolean;
}

export interface ApiServer {
  url: string;
  port: number;
  /** The operations behind the HTTP API, for in-process callers such as a topology loader. */
  registry: Registry;
  close(): Promise<void>;
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

interface ParsedPath {
  definition: ResourceDefinition;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
}

type Query = Record<string, string | string[] | undefined>;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * Paths outside every served API group get Go's plain "404 page not found", as from a
 * kube-apiserver; unknown versions or resources of a served group get a NotFound Status.
 */
class PlainNotFound extends Error {}

function isServedGroup(group: string): boolean {
  return RESOURCES.some((definition) => definition.group === group);
}

function sendPlainNotFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('content-type', 'text/plain; charset=utf-8')
    .send('404 page not found\n');
}

function mediaType(request: FastifyRequest): string {
  const header = request.headers['content-type'] ?? '';
  return header.split(';')[0]?.trim().toLowerCase() ?? '';
}

function sendJson(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  return reply.code(code).header('content-type', 'application/json').send(JSON.stringify(body));
}

function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  return sendJson(reply, error.code, error.toStatus());
}

/** The representation asked for in Accept: plain objects, a Table, or metadata only. */
type Representation = 'object' | 'table' | 'metadata';

function representationOf(request: FastifyRequest): Representation {
  const accept = request.headers.accept ?? '';
  for (const part of accept.split(',')) {
    if (/;\s*as=Table/.test(part)) return 'table';
    if (/;\s*as=PartialObjectMetadata(List)?/.test(part)) return 'metadata';
    const type = part.split(';')[0]?.trim();
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '')
      return 'object';
  }
  if (/application\/json|\*\/\*|^\s*$/.test(accept)) return 'object';
  throw new ApiError(
    406,
    'NotAcceptable',
    `only the following media types are accepted: application/json, application/yaml`,
  );
}

function columnDefinitions(columns: readonly TableColumn[]): object[] {
  return columns.map((column) => ({
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority,
  }));
}

function partialMetadata(object: KubeObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

function tableRow(
  definition: ResourceDefinition,
  object: KubeObject,
  includeObject: string | undefined,
): object {
  const now = Date.now();
  const row: Record<string, unknown> = {
    cells: definition.columns.map((column) => column.cell(object, now)),
  };
  if (includeObject === 'Object') row.object = object;
  else if (includeObject !== 'None') row.object = partialMetadata(object);
  return row;
}

function table(
  definition: ResourceDefinition,
  objects: KubeObject[],
  metadata: Record<string, unknown>,
  includeObject: string | undefined,
  withHeaders = true,
): object {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: withHeaders ? columnDefinitions(definition.columns) : [],
    rows: objects.map((object) => tableRow(definition, object, includeObject)),
  };
}

function parsePath(url: string): ParsedPath | 'discovery' {
  let segments: string[];
  try {
    segments = url.split('?')[0]?.split('/').filter(Boolean).map(decodeURIComponent) ?? [];
  } catch {
    throw badRequest(`malformed URL path: ${url}`);
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length <= 2) return 'discovery';
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else {
    if (segments.length <= 3) return 'discovery';
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  }
  if (!isServedGroup(group)) throw new PlainNotFound();
  let watchPath = false;
  if (rest[0] === 'watch') {
    watchPath = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // /namespaces/<ns>/<resource>… unless it is a namespace's own subresource (status, finalize).
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    rest[2] !== 'status' &&
    rest[2] !== 'finalize'
  ) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) throw notFoundPath();
  const plural = rest[0] ?? '';
  const definition =
    group === '' && plural === 'bindings'
      ? findResource('', version, 'pods')
      : findResource(group, version, plural);
  if (!definition) throw notFoundPath();
  if (namespace !== undefined && !definition.namespaced) throw notFoundPath();
  if (group === '' && plural === 'bindings') {
    if (rest.length !== 1 || namespace === undefined) throw notFoundPath();
    return { definition, namespace, name: undefined, subresource: 'bindings', watchPath };
  }
  const subresource = rest[2];
  if (subresource !== undefined) {
    const known =
      (subresource === 'status' && definition.statusSubresource) ||
      (subresource === 'scale' && definition.scaleSubresource) ||
      (subresource === 'binding' && definition.bindingSubresource);
    if (!known) throw notFoundPath();
  }
  return { definition, namespace, name: rest[1], subresource, watchPath };
}

function decodeBody(
  request: FastifyRequest,
  kind: 'object' | 'patch',
): { body: unknown; patchType?: PatchType } {
  const raw = request.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : typeof raw === 'string' ? raw : '';
  const type = mediaType(request);
  let patchType: PatchType | undefined;
  if (kind === 'patch') {
    patchType = PATCH_TYPES[type];
    if (!patchType) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
    }
  } else if (type === PROTOBUF && Buffer.isBuffer(raw)) {
    try {
      return { body: decodeKubernetesProtobuf(raw) };
    } catch (error) {
      if (error instanceof ProtobufKindUnsupported) {
        throw new ApiError(
          415,
          'UnsupportedMediaType',
          `${error.apiVersion}/${error.kind} cannot be sent as protobuf here - accepted media types include: application/json, application/yaml`,
        );
      }
      if (error instanceof ApiError) throw error;
      throw badRequest(`the protobuf body could not be decoded: ${String(error)}`);
    }
  } else if (
    type !== '' &&
    type !== 'application/json' &&
    type !== 'application/yaml' &&
    type !== '*/*'
  ) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  }
  if (text.trim() === '')
    throw badRequest('the body of the request is empty; an object is required');
  try {
    const useYaml = type === 'application/yaml' || patchType === 'apply';
    const body: unknown = useYaml ? parseYaml(text) : JSON.parse(text);
    checkDepth(body);
    return patchType ? { body, patchType } : { body };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw badRequest(
      `the body of the request could not be decoded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

const MAX_BODY_DEPTH = 1000;

/** Refuses absurdly nested bodies up front: every later step (clone, patch, compare) recurses. */
function checkDepth(body: unknown): void {
  const pending: [unknown, number][] = [[body, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, depth] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH)
      throw badRequest(`the body of the request nests deeper than ${MAX_BODY_DEPTH} levels`);
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
}

const OPTIONS_KIND: Readonly<Record<string, string>> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

function writeOptions(request: FastifyRequest, query: Query, body?: unknown): WriteOptions {
  const dryRunValues = [query.dryRun ?? []].flat();
  if (isRecord(body) && Array.isArray(body.dryRun)) dryRunValues.push(...body.dryRun.map(String));
  const causes: StatusCause[] = [];
  for (const value of dryRunValues) {
    if (value !== 'All') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${value}": supported values: "All"`,
        field: 'dryRun',
      });
    }
  }
  const fieldValidation = first(query.fieldValidation);
  if (fieldValidation !== undefined && !['Ignore', 'Warn', 'Strict'].includes(fieldValidation)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${fieldValidation}": supported values: "Ignore", "Strict", "Warn"`,
      field: 'fieldValidation',
    });
  }
  const manager = first(query.fieldManager);
  if (manager !== undefined && manager.length > 128) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: 'Too long: may not be more than 128 bytes',
      field: 'fieldManager',
    });
  }
  // Bad options are a 422 about CreateOptions/UpdateOptions/…, as the real handlers answer.
  if (causes.length > 0) {
    throw invalid('meta.k8s.io', OPTIONS_KIND[request.method] ?? 'CreateOptions', '', causes);
  }
  const fieldManager = first(query.fieldManager);
  const warnings: string[] = [];
  requestWarnings.set(request.raw, warnings);
  return {
    dryRun: dryRunValues.length > 0,
    ...(fieldManager !== undefined ? { fieldManager } : {}),
    // Without the parameter a real server warns about unknown fields (since 1.27).
    fieldValidation: (fieldValidation ?? 'Warn') as FieldValidation,
    warnings,
  };
}

/** Warnings for a request's `Warning` response header (unknown fields under fieldValidation=Warn). */
const requestWarnings = new WeakMap<object, string[]>();

function listOptions(query: Query): ListOptions {
  const limitText = first(query.limit);
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw badRequest(`invalid limit "${limitText}"`);
  const options: ListOptions = {};
  const labelSelector = first(query.labelSelector);
  const fieldSelector = first(query.fieldSelector);
  const continueToken = first(query.continue);
  const resourceVersion = first(query.resourceVersion);
  const resourceVersionMatch = first(query.resourceVersionMatch);
  if (labelSelector !== undefined) options.labelSelector = labelSelector;
  if (fieldSelector !== undefined) options.fieldSelector = fieldSelector;
  if (limit !== undefined) options.limit = limit;
  if (continueToken) options.continueToken = continueToken;
  if (resourceVersion !== undefined) options.resourceVersion = resourceVersion;
  if (resourceVersionMatch !== undefined) options.resourceVersionMatch = resourceVersionMatch;
  return options;
}

const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ['Background', 'Foreground', 'Orphan'];

function deleteOptions(request: FastifyRequest, query: Query): DeleteOptions {
  const raw = request.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  let body: unknown;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw badRequest(
        `the body of the request could not be decoded: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const options: DeleteOptions = writeOptions(request, query, body);
  let policy: unknown = first(query.propagationPolicy);
  if (isRecord(body)) {
    policy ??= body.propagationPolicy;
    if (policy === undefined && typeof body.orphanDependents === 'boolean') {
      policy = body.orphanDependents ? 'Orphan' : 'Background';
    }
    if (isRecord(body.preconditions)) {
      const { uid, resourceVersion } = body.preconditions;
      options.preconditions = {
        ...(typeof uid === 'string' ? { uid } : {}),
        ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}),
      };
    }
  }
  const graceText = first(query.gracePeriodSeconds);
  const graceBody = isRecord(body) ? body.gracePeriodSeconds : undefined;
  const grace = graceText !== undefined ? Number(graceText) : graceBody;
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) {
      throw badRequest(`invalid gracePeriodSeconds "${String(graceText ?? graceBody)}"`);
    }
    options.gracePeriodSeconds = grace;
  }
  const orphanQuery = first(query.orphanDependents);
  if (policy === undefined && orphanQuery !== undefined)
    policy = orphanQuery === 'true' ? 'Orphan' : 'Background';
  if (policy !== undefined) {
    if (typeof policy !== 'string' || !PROPAGATION_POLICIES.includes(policy as PropagationPolicy)) {
      throw new ApiError(
        422,
        'Invalid',
        `propagationPolicy: Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`,
        {
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: `Unsupported value: "${String(policy)}"`,
              field: 'propagationPolicy',
            },
          ],
        },
      );
    }
    options.propagationPolicy = policy as PropagationPolicy;
  }
  return options;
}

/** JSON of stored objects already sent to a watcher; stored objects are never mutated. */
const serializedObjects = new WeakMap<object, string>();

class WatchStreams {
  /** Each open watch's response, with the function that sends what waits and ends it. */
  private readonly open = new Map<ServerResponse, () => void>();

  add(response: ServerResponse, end: () => void, cleanup: () => void): void {
    this.open.set(response, end);
    response.on('close', () => {
      this.open.delete(response);
      cleanup();
    });
  }

  closeAll(): void {
    for (const end of [...this.open.values()]) end();
    this.open.clear();
  }
}

export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? 3 * 1024 * 1024;
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 15_000;
  const store = new ObjectStore(options.watchWindow ?? 1000);
  if (options.stateFile) {
    const snapshot = await loadStateFile(options.stateFile);
    if (snapshot) {
      store.restore(snapshot, (object) =>
        typeof object.apiVersion === 'string' && typeof object.kind === 'string'
          ? findResourceByKind(object.apiVersion, object.kind)
          : undefined,
      );
    }
  }
  const registry = new Registry(store);
  registry.ensureDefaultNamespaces();
  registry.resumeAfterRestore();
  const controllerManager =
    options.controllerManager === false ? undefined : startControllerManager(registry);
  const eventDefinition = findResource('', 'v1', 'events');
  if (!eventDefinition) throw new Error('events missing from the resource table');
  const eventExpiry = new EventExpiry(
    store,
    eventDefinition,
    options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS,
  );
  eventExpiry.start();
  const stateWriter = options.stateFile
    ? new StateFileWriter(
        options.stateFile,
        () => store.snapshot(),
        options.stateFileDelayMs ?? 1000,
      )
    : undefined;
  if (stateWriter) {
    store.onChange = () => stateWriter.schedule();
    stateWriter.schedule();
  }

  const app: FastifyInstance = Fastify({
    bodyLimit: maxBodyBytes,
    forceCloseConnections: true,
    logger: false,
  });
  const watches = new WatchStreams();
  let serverAddress = `${host}:0`;

  // Bodies stay raw bytes: the handler decodes them by media type and answers with a Status.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) return sendStatus(reply, error);
    if (error instanceof PlainNotFound) return sendPlainNotFound(reply);
    const code = isRecord(error) && typeof error.code === 'string' ? error.code : '';
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendStatus(
        reply,
        new ApiError(
          413,
          'RequestEntityTooLarge',
          `Request entity too large: limit is ${maxBodyBytes}`,
        ),
      );
    }
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendStatus(
        reply,
        new ApiError(
          415,
          'UnsupportedMediaType',
          'the body of the request was in an unknown format',
        ),
      );
    }
    const statusCode =
      isRecord(error) && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (statusCode >= 400 && statusCode < 500) {
      return sendStatus(
        reply,
        new ApiError(400, 'BadRequest', error instanceof Error ? error.message : String(error)),
      );
    }
    process.stderr.write(
      `cluster-sim: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return sendStatus(
      reply,
      new ApiError(
        500,
        'InternalError',
        `Internal error occurred: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  });
  app.addHook('onSend', async (request, reply) => {
    // An answered write is on the disk (see state-file.ts): commit before the answer goes out.
    if (stateWriter && request.method !== 'GET' && request.method !== 'HEAD') {
      await stateWriter.commit();
    }
    const warnings = requestWarnings.get(request.raw);
    if (warnings && warnings.length > 0) {
      reply.header(
        'warning',
        warnings.map((warning) => `299 - "${warning.replace(/["\\]/g, '\\$&')}"`),
      );
    }
  });
  app.setNotFoundHandler((_request, reply) => sendPlainNotFound(reply));

  const ok = (_request: FastifyRequest, reply: FastifyReply) => reply.type('text/plain').send('ok');
  for (const path of ['/healthz', '/readyz', '/livez']) app.get(path, ok);
  app.get('/version', (_request, reply) => sendJson(reply, 200, SERVER_VERSION));
  app.get('/api', (_request, reply) => sendJson(reply, 200, apiVersions(serverAddress)));
  app.get('/apis', (_request, reply) => sendJson(reply, 200, apiGroupList()));
  app.get('/openapi/v3', (_request, reply) => sendJson(reply, 200, openApiRoot()));
  app.get('/openapi/v3/*', (request, reply) => {
    const path = (request.url.split('?')[0] ?? '').replace(/^\/openapi\/v3\//, '').split('/');
    const document =
      path[0] === 'api'
        ? openApiDocument('', path[1] ?? '')
        : openApiDocument(path[1] ?? '', path[2] ?? '');
    if (!document) return sendStatus(reply, notFoundPath());
    return sendJson(reply, 200, document);
  });

  const handle = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> => {
    const parsed = parsePath(request.url);
    const query = request.query as Query;
    if (parsed === 'discovery') {
      if (request.method !== 'GET') throw methodNotAllowed();
      const segments = (request.url.split('?')[0] ?? '').split('/').filter(Boolean);
      const document =
        segments[0] === 'api'
          ? segments.length === 1
            ? apiVersions(serverAddress)
            : apiResourceList('', segments[1] ?? '')
          : segments.length === 2
            ? apiGroupDocument(segments[1] ?? '')
            : apiResourceList(segments[1] ?? '', segments[2] ?? '');
      if (!document) {
        throw segments[0] === 'apis' && !isServedGroup(segments[1] ?? '')
          ? new PlainNotFound()
          : notFoundPath();
      }
      return sendJson(reply, 200, document);
    }
    const { definition, namespace, name, subresource } = parsed;
    // HEAD is a GET without the body (Fastify drops the body).
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (subresource === 'bindings' && method === 'POST') {
      const { body } = decodeBody(request, 'object');
      const bindingName =
        isRecord(body) && isRecord(body.metadata) ? body.metadata.name : undefined;
      if (typeof bindingName !== 'string')
        throw badRequest('a binding needs metadata.name (the pod)');
      return sendJson(
        reply,
        201,
        registry.bind(definition, namespace, bindingName, body, writeOptions(request, query, body)),
      );
    }
    if (subresource === 'bindings') throw methodNotAllowed();

    if (name === undefined) {
      if (method === 'GET') {
        const representation = representationOf(request);
        const watching =
          parsed.watchPath || first(query.watch) === 'true' || first(query.watch) === '1';
        if (watching) return streamWatch(reply, definition, namespace, query, representation);
        const result = registry.list(definition, namespace, listOptions(query));
        const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
        if (result.continueToken) {
          metadata.continue = result.continueToken;
          metadata.remainingItemCount = result.remainingItemCount;
        }
        if (representation === 'table') {
          return sendJson(
            reply,
            200,
            table(definition, result.items, metadata, first(query.includeObject)),
          );
        }
        if (representation === 'metadata') {
          return sendJson(reply, 200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata,
            items: result.items.map(partialMetadata),
          });
        }
        return sendJson(reply, 200, {
          kind: `${definition.kind}List`,
          apiVersion: definition.group
            ? `${definition.group}/${definition.version}`
            : definition.version,
          metadata,
          items: result.items,
        });
      }
      if (method === 'POST') {
        if (definition.namespaced && namespace === undefined) throw methodNotAllowed();
        const { body } = decodeBody(request, 'object');
        return sendJson(
          reply,
          201,
          registry.create(definition, namespace, body, writeOptions(request, query, body)),
        );
      }
      if (method === 'DELETE') {
        return sendJson(
          reply,
          200,
          registry.deleteCollection(
            definition,
            namespace,
            listOptions(query),
            deleteOptions(request, query),
          ),
        );
      }
      throw methodNotAllowed();
    }

    if (subresource === 'binding') {
      if (method !== 'POST') throw methodNotAllowed();
      const { body } = decodeBody(request, 'object');
      return sendJson(
        reply,
        201,
        registry.bind(definition, namespace, name, body, writeOptions(request, query, body)),
      );
    }
    if (subresource === 'scale') {
      if (method === 'GET')
        return sendJson(reply, 200, registry.scale(definition, namespace, name));
      if (method === 'PUT') {
        const { body } = decodeBody(request, 'object');
        return sendJson(
          reply,
          200,
          registry.updateScale(
            definition,
            namespace,
            name,
            body,
            writeOptions(request, query, body),
          ),
        );
      }
      if (method === 'PATCH') {
        const { body, patchType } = decodeBody(request, 'patch');
        if (patchType === 'apply') {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            'server-side apply is not supported on the scale subresource',
          );
        }
        return sendJson(
          reply,
          200,
          registry.patchScale(
            definition,
            namespace,
            name,
            patchType ?? 'merge',
            body,
            writeOptions(request, query),
          ),
        );
      }
      throw methodNotAllowed();
    }
    const target = subresource === 'status' ? 'status' : 'main';
    const watchingOne =
      parsed.watchPath || first(query.watch) === 'true' || first(query.watch) === '1';
    if (method === 'GET' && subresource === undefined && watchingOne) {
      // Watching one object (legacy /watch/…/<name>) is a watch with a metadata.name selector.
      const byName = `metadata.name=${name}`;
      const fieldSelector = first(query.fieldSelector);
      return streamWatch(
        reply,
        definition,
        namespace,
        { ...query, fieldSelector: fieldSelector ? `${fieldSelector},${byName}` : byName },
        representationOf(request),
      );
    }
    switch (method) {
      case 'GET': {
        const representation = representationOf(request);
        const object = registry.get(definition, namespace, name);
        if (representation === 'table') {
          return sendJson(
            reply,
            200,
            table(
              definition,
              [object],
              { resourceVersion: object.metadata.resourceVersion },
              first(query.includeObject),
            ),
          );
        }
        return sendJson(
          reply,
          200,
          representation === 'metadata' ? partialMetadata(object) : object,
        );
      }
      case 'PUT': {
        const { body } = decodeBody(request, 'object');
        return sendJson(
          reply,
          200,
          registry.update(
            definition,
            namespace,
            name,
            body,
            writeOptions(request, query, body),
            target,
          ),
        );
      }
      case 'PATCH': {
        const { body, patchType } = decodeBody(request, 'patch');
        const existed = registry.store.get(definition, namespace, name) !== undefined;
        const force = first(query.force) === 'true';
        if (patchType === 'apply' && first(query.fieldManager) === undefined) {
          throw badRequest('PATCH, application/apply-patch+yaml requests must have a fieldManager');
        }
        const result = registry.patch(
          definition,
          namespace,
          name,
          patchType ?? 'merge',
          body,
          { ...writeOptions(request, query), force },
          target,
        );
        return sendJson(reply, existed ? 200 : 201, result);
      }
      case 'DELETE': {
        if (subresource !== undefined) throw methodNotAllowed();
        const { object, deleted } = registry.delete(
          definition,
          namespace,
          name,
          deleteOptions(request, query),
        );
        if (definition.returnsDeletedObject || !deleted) return sendJson(reply, 200, object);
        return sendJson(
          reply,
          200,
          successStatus({
            name,
            group: definition.group,
            kind: definition.plural,
            ...(object.metadata.uid ? { uid: object.metadata.uid } : {}),
          }),
        );
      }
      default:
        throw methodNotAllowed();
    }
  };

  const streamWatch = (
    reply: FastifyReply,
    definition: ResourceDefinition,
    namespace: string | undefined,
    query: Query,
    representation: Representation,
  ): FastifyReply => {
    const timeoutText = first(query.timeoutSeconds);
    const timeoutSeconds = timeoutText === undefined ? undefined : Number(timeoutText);
    if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) {
      throw badRequest(`invalid timeoutSeconds "${timeoutText}"`);
    }
    const includeObject = first(query.includeObject);
    const sendInitialEvents = first(query.sendInitialEvents) === 'true';
    const watchOptions = {
      ...(first(query.labelSelector) !== undefined
        ? { labelSelector: first(query.labelSelector) }
        : {}),
      ...(first(query.fieldSelector) !== undefined
        ? { fieldSelector: first(query.fieldSelector) }
        : {}),
      ...(!sendInitialEvents && first(query.resourceVersion) !== undefined
        ? { resourceVersion: first(query.resourceVersion) }
        : {}),
    };
    // Parse selectors before the 200 goes out, so a bad one is a plain 400 Status.
    registry.list(definition, namespace, { ...watchOptions, limit: 1, resourceVersion: undefined });
    const response = reply.raw;
    let headersSent = false;
    reply.hijack();
    response.writeHead(200, {
      'content-type': 'application/json',
      'cache-control': 'no-cache, private',
    });
    response.flushHeaders();
    // A watcher that went away mid-write must not take the server down with an 'error' event.
    response.on('error', () => undefined);
    // Lines wait for the end of this turn of the event loop and go out as one chunk: under
    // load many requests commit in one turn, and a socket write per event per watcher (a
    // syscall, and on loopback the receiver's TCP work with it) was the server's largest cost.
    // kube-apiserver's watch server likewise flushes only once its event channel is drained.
    let pending = '';
    let flushing: NodeJS.Immediate | undefined;
    const flush = (): void => {
      flushing = undefined;
      const lines = pending;
      pending = '';
      if (lines !== '' && !response.writableEnded && !response.destroyed) response.write(lines);
    };
    const end = (): void => {
      if (flushing) clearImmediate(flushing);
      flush();
      response.end();
    };
    const write = (event: WatchEvent): void => {
      if (response.writableEnded || response.destroyed) return;
      let object: unknown = event.object;
      if (event.type !== 'ERROR' && event.type !== 'BOOKMARK') {
        if (representation === 'table') {
          object = table(
            definition,
            [event.object as KubeObject],
            { resourceVersion: (event.object as KubeObject).metadata.resourceVersion },
            includeObject,
            !headersSent,
          );
          headersSent = true;
        } else if (representation === 'metadata') {
          object = partialMetadata(event.object as KubeObject);
        }
      }
      // The same stored object goes to every watcher: serialise it once, not once per watcher.
      let serialized =
        typeof object === 'object' && object !== null ? serializedObjects.get(object) : undefined;
      if (serialized === undefined) {
        serialized = JSON.stringify(object);
        if (object === event.object && typeof object === 'object' && object !== null) {
          serializedObjects.set(object, serialized);
        }
      }
      pending += `{"type":"${event.type}","object":${serialized}}\n`;
      flushing ??= setImmediate(flush);
    };
    const timers: NodeJS.Timeout[] = [];
    let stop = (): void => undefined;
    watches.add(response, end, () => {
      stop();
      if (flushing) clearImmediate(flushing);
      for (const timer of timers) clearTimeout(timer);
    });
    const started = registry.watch(definition, namespace, watchOptions, write);
    if ('expired' in started) {
      write({ type: 'ERROR', object: started.expired });
      end();
      return reply;
    }
    stop = started.stop;
    const bookmark = (annotations?: Record<string, string>): void => {
      write({
        type: 'BOOKMARK',
        object: {
          kind: definition.kind,
          apiVersion: definition.group
            ? `${definition.group}/${definition.version}`
            : definition.version,
          metadata: {
            resourceVersion: String(store.resourceVersion),
            ...(annotations ? { annotations } : {}),
          },
        } as KubeObject,
      });
    };
    const bookmarks = first(query.allowWatchBookmarks) === 'true';
    if (sendInitialEvents && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
    if (bookmarks) timers.push(setInterval(() => bookmark(), bookmarkIntervalMs));
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
      timers.push(setTimeout(end, timeoutSeconds * 1000));
    }
    return reply;
  };

  for (const prefix of ['/api', '/apis']) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${prefix}/*`,
      handler: handle,
    });
  }

  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  serverAddress = `${host}:${port}`;

  return {
    url: `http://${host}:${port}`,
    port,
    registry,
    close: async () => {
      eventExpiry.stop();
      await controllerManager?.stop();
      registry.stop();
      watches.closeAll();
      app.server.closeAllConnections();
      await app.close();
      await stateWriter?.flush();
    },
  };
}
