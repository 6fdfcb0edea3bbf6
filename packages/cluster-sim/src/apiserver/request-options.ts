/**
 * Query parameters and option bodies of a request, read into the Registry's options: dryRun,
 * fieldValidation, fieldManager, list paging and selectors, delete propagation and grace.
 */
import type { FastifyRequest } from 'fastify';
import { isRecord } from './kube-object.js';
import type {
  DeleteOptions,
  FieldValidation,
  ListOptions,
  PropagationPolicy,
  WriteOptions,
} from './registry.js';
import { ApiError, badRequest, invalid, type StatusCause } from './status.js';

export type Query = Record<string, string | string[] | undefined>;

export function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const OPTIONS_KIND: Readonly<Record<string, string>> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};
export function writeOptions(request: FastifyRequest, query: Query, body?: unknown): WriteOptions {
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
export const requestWarnings = new WeakMap<object, string[]>();

export function listOptions(query: Query): ListOptions {
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
export function deleteOptions(request: FastifyRequest, query: Query): DeleteOptions {
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
