/** DELETE of one object and of a collection. */
import type { FastifyReply } from 'fastify';
import { deleteOptions, listOptions } from '../request-options.js';
import { sendJson } from '../responses.js';
import { successStatus } from '../status.js';
import type { ResourceCall } from './context.js';

export function deleteObject(call: ResourceCall, name: string): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
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

export function deleteCollection(call: ResourceCall): FastifyReply {
  const { request, reply, query, registry, definition, namespace } = call;
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
