import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../registry.js';
import type { Query } from '../request-options.js';
import type { ResourceDefinition } from '../resource-table.js';

/** One request to a resource path, with the resource and namespace routes.ts resolved it to. */
export interface ResourceCall {
  request: FastifyRequest;
  reply: FastifyReply;
  query: Query;
  registry: Registry;
  definition: ResourceDefinition;
  namespace: string | undefined;
}

/** The Registry's own: which part of an object a PUT or PATCH writes. */
export type { WriteTarget } from '../registry.js';
