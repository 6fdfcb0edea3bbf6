/** The scale subresource and pod binding (`pods/<name>/binding` and the legacy `bindings`). */
import type { FastifyReply } from 'fastify';
import { isRecord } from '../kube-object.js';
import { decodeBody } from '../request-body.js';
import { writeOptions } from '../request-options.js';
import { sendJson } from '../responses.js';
import { ApiError, badRequest, methodNotAllowed } from '../status.js';
import type { ResourceCall } from './context.js';

/** POST /api/v1/namespaces/<ns>/bindings: the pod is the binding's metadata.name. */
export function bindFromCollection(call: ResourceCall): FastifyReply {
  const { body } = decodeBody(call.request, 'object');
  const bindingName = isRecord(body) && isRecord(body.metadata) ? body.metadata.name : undefined;
  if (typeof bindingName !== 'string') throw badRequest('a binding needs metadata.name (the pod)');
  return sendBinding(call, bindingName, body);
}

/** POST /api/v1/namespaces/<ns>/pods/<name>/binding. */
export function bind(call: ResourceCall, name: string): FastifyReply {
  const { body } = decodeBody(call.request, 'object');
  return sendBinding(call, name, body);
}

function sendBinding(call: ResourceCall, pod: string, body: unknown): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
  return sendJson(
    reply,
    201,
    registry.bind(definition, namespace, pod, body, writeOptions(request, query, body)),
  );
}

export function scale(call: ResourceCall, name: string, method: string): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
  if (method === 'GET') return sendJson(reply, 200, registry.scale(definition, namespace, name));
  if (method === 'PUT') {
    const { body } = decodeBody(request, 'object');
    return sendJson(
      reply,
      200,
      registry.updateScale(definition, namespace, name, body, writeOptions(request, query, body)),
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
