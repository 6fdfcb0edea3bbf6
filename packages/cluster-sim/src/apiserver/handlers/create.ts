/** POST to a collection: create an object. */
import type { FastifyReply } from 'fastify';
import { admitPodQuota } from '../quota-admission.js';
import { decodeBody } from '../request-body.js';
import { writeOptions } from '../request-options.js';
import { sendJson } from '../responses.js';
import { methodNotAllowed } from '../status.js';
import type { ResourceCall } from './context.js';

export function create(call: ResourceCall): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
  if (definition.namespaced && namespace === undefined) throw methodNotAllowed();
  const { body } = decodeBody(request, 'object');
  const options = writeOptions(request, query, body);
  if (definition.plural === 'pods' && definition.group === '' && namespace !== undefined)
    admitPodQuota(registry, definition, namespace, body, options);
  return sendJson(reply, 201, registry.create(definition, namespace, body, options));
}
