/**
 * Request bodies: decoded by media type (JSON, YAML, protobuf, the four patch types), with the
 * 415 and 400 Statuses a kube-apiserver gives for the ones it cannot read.
 */
import type { FastifyRequest } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { decodeKubernetesProtobuf, ProtobufKindUnsupported } from './protobuf.js';
import type { PatchType } from './registry.js';
import { ApiError, badRequest } from './status.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export function mediaType(request: FastifyRequest): string {
  const header = request.headers['content-type'] ?? '';
  return header.split(';')[0]?.trim().toLowerCase() ?? '';
}

export function decodeBody(
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

export const MAX_BODY_DEPTH = 1000;

/** Refuses absurdly nested bodies up front: every later step (clone, patch, compare) recurses. */
export function checkDepth(body: unknown): void {
  const pending: [unknown, number][] = [[body, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, depth] = item;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_BODY_DEPTH)
      throw badRequest(`the body of the request nests deeper than ${MAX_BODY_DEPTH} levels`);
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
}
