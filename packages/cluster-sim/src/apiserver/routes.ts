/**
 * URL → resource and verb: discovery and OpenAPI documents, health and version, and every
 * resource path (collection, object, subresource, legacy /watch) dispatched to its handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SELF_SUBJECT_ACCESS_REVIEWS, selfSubjectAccessReview } from './access-review.js';
import {
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiDocument,
  openApiRoot,
  SERVER_VERSION,
} from './discovery.js';
import type { ResourceCall } from './handlers/context.js';
import { create } from './handlers/create.js';
import { deleteCollection, deleteObject } from './handlers/delete.js';
import { type PodLogSource, podLog } from './handlers/pod-log.js';
import { get, list } from './handlers/read.js';
import { bind, bindFromCollection, scale } from './handlers/subresources.js';
import { patch, update } from './handlers/update.js';
import { first, type Query } from './request-options.js';
import { findResource, RESOURCES, type ResourceDefinition } from './resource-table.js';
import {
  notFoundPath,
  PlainNotFound,
  representationOf,
  sendJson,
  sendStatus,
} from './responses.js';
import { badRequest, methodNotAllowed } from './status.js';
import { streamWatch, type WatchServing } from './watch.js';

interface ParsedPath {
  definition: ResourceDefinition;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
  watchPath: boolean;
}

function isServedGroup(group: string): boolean {
  return RESOURCES.some((definition) => definition.group === group);
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
      (subresource === 'binding' && definition.bindingSubresource) ||
      (subresource === 'log' && group === '' && plural === 'pods');
    if (!known) throw notFoundPath();
  }
  return { definition, namespace, name: rest[1], subresource, watchPath };
}

/** What the routes need from the server besides the Registry and the watches. */
export interface RouteContext extends WatchServing {
  /** host:port the server listens on, for the /api document's serverAddressByClientCIDRs. */
  serverAddress(): string;
  /** The containers' logs (the node agents'); absent: no kubelet answers `pods/<name>/log`. */
  podLogs?: PodLogSource | undefined;
}

/** Registers every route of the API server on `app`. */
export function registerRoutes(app: FastifyInstance, context: RouteContext): void {
  const { registry } = context;
  const ok = (_request: FastifyRequest, reply: FastifyReply) => reply.type('text/plain').send('ok');
  for (const path of ['/healthz', '/readyz', '/livez']) app.get(path, ok);
  app.get('/version', (_request, reply) => sendJson(reply, 200, SERVER_VERSION));
  app.get('/api', (_request, reply) => sendJson(reply, 200, apiVersions(context.serverAddress())));
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
            ? apiVersions(context.serverAddress())
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
    const call: ResourceCall = { request, reply, query, registry, definition, namespace };
    if (subresource === 'bindings' && method === 'POST') return bindFromCollection(call);
    if (subresource === 'bindings') throw methodNotAllowed();
    const watching =
      parsed.watchPath || first(query.watch) === 'true' || first(query.watch) === '1';

    if (name === undefined) {
      if (method === 'GET') {
        const representation = representationOf(request);
        if (watching) {
          return streamWatch(context, reply, definition, namespace, query, representation);
        }
        return list(call, representation);
      }
      if (method === 'POST') return create(call);
      if (method === 'DELETE') return deleteCollection(call);
      throw methodNotAllowed();
    }

    if (subresource === 'binding') {
      if (method !== 'POST') throw methodNotAllowed();
      return bind(call, name);
    }
    if (subresource === 'scale') return scale(call, name, method);
    if (subresource === 'log') {
      if (method !== 'GET') throw methodNotAllowed();
      return podLog(call, name, context.podLogs);
    }
    const target = subresource === 'status' ? 'status' : 'main';
    if (method === 'GET' && subresource === undefined && watching) {
      // Watching one object (legacy /watch/…/<name>) is a watch with a metadata.name selector.
      const byName = `metadata.name=${name}`;
      const fieldSelector = first(query.fieldSelector);
      return streamWatch(
        context,
        reply,
        definition,
        namespace,
        { ...query, fieldSelector: fieldSelector ? `${fieldSelector},${byName}` : byName },
        representationOf(request),
      );
    }
    switch (method) {
      case 'GET':
        return get(call, name, representationOf(request));
      case 'PUT':
        return update(call, name, target);
      case 'PATCH':
        return patch(call, name, target);
      case 'DELETE':
        if (subresource !== undefined) throw methodNotAllowed();
        return deleteObject(call, name);
      default:
        throw methodNotAllowed();
    }
  };

  app.post(SELF_SUBJECT_ACCESS_REVIEWS, selfSubjectAccessReview);
  for (const prefix of ['/api', '/apis']) {
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${prefix}/*`,
      handler: handle,
    });
  }
}
