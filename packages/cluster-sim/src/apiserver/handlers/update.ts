/** PUT and PATCH of one object or its status (server-side apply included). */
import type { FastifyReply } from 'fastify';
import { decodeBody } from '../request-body.js';
import { first, writeOptions } from '../request-options.js';
import { sendJson } from '../responses.js';
import { badRequest } from '../status.js';
import type { ResourceCall, WriteTarget } from './context.js';

export function update(call: ResourceCall, name: string, target: WriteTarget): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
  const { body } = decodeBody(request, 'object');
  return sendJson(
    reply,
    200,
    registry.update(definition, namespace, name, body, writeOptions(request, query, body), target),
  );
}

export function patch(call: ResourceCall, name: string, target: WriteTarget): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
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
  // Server-side apply creates what is missing: 201 then, as from a kube-apiserver.
  return sendJson(reply, existed ? 200 : 201, result);
}
