/** GET of a collection (a watch is served by watch.ts) and of one object or its status. */
import type { FastifyReply } from 'fastify';
import { first, listOptions } from '../request-options.js';
import { partialMetadata, type Representation, sendJson, table } from '../responses.js';
import type { ResourceCall } from './context.js';

export function list(call: ResourceCall, representation: Representation): FastifyReply {
  const { reply, query, registry, definition, namespace } = call;
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
    apiVersion: definition.group ? `${definition.group}/${definition.version}` : definition.version,
    metadata,
    items: result.items,
  });
}

export function get(
  call: ResourceCall,
  name: string,
  representation: Representation,
): FastifyReply {
  const { reply, query, registry, definition, namespace } = call;
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
  return sendJson(reply, 200, representation === 'metadata' ? partialMetadata(object) : object);
}
