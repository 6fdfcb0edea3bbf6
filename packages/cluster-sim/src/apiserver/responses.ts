/**
 * What goes back: JSON bodies, Status objects for every error, Go's plain 404 outside the
 * served groups, and the Table / PartialObjectMetadata representations kubectl asks for.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecord, type KubeObject } from './kube-object.js';
import type { TableColumn } from './printers.js';
import type { ResourceDefinition } from './resource-table.js';
import { ApiError } from './status.js';

export function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * Paths outside every served API group get Go's plain "404 page not found", as from a
 * kube-apiserver; unknown versions or resources of a served group get a NotFound Status.
 */
export class PlainNotFound extends Error {}

export function sendPlainNotFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('content-type', 'text/plain; charset=utf-8')
    .send('404 page not found\n');
}

export function sendJson(reply: FastifyReply, code: number, body: unknown): FastifyReply {
  return reply.code(code).header('content-type', 'application/json').send(JSON.stringify(body));
}

export function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  return sendJson(reply, error.code, error.toStatus());
}

/** The representation asked for in Accept: plain objects, a Table, or metadata only. */
export type Representation = 'object' | 'table' | 'metadata';

export function representationOf(request: FastifyRequest): Representation {
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

export function columnDefinitions(columns: readonly TableColumn[]): object[] {
  return columns.map((column) => ({
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority,
  }));
}

export function partialMetadata(object: KubeObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

export function tableRow(
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

export function table(
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

/** The answer to an error thrown while serving a request: always a Status, or Go's plain 404. */
export function sendError(reply: FastifyReply, error: unknown, maxBodyBytes: number): FastifyReply {
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
      new ApiError(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format'),
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
}
