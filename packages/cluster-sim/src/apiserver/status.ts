/**
 * Kubernetes `Status` errors. Every failure the API server reports is one of these, so clients
 * (client-node's ApiException, kubectl's error printer) see what a real kube-apiserver sends.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Timeout';

export type CauseReason =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueDuplicate'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTypeInvalid';

export interface StatusCause {
  reason: CauseReason;
  message: string;
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** Thrown anywhere in request handling; the HTTP layer turns it into a Status response. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): StatusObject {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** "deployments.apps" — the qualified resource name real error messages use. */
export function qualifiedResource(group: string, plural: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(group: string, plural: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(group, plural)} "${name}" not found`, {
    name,
    group,
    kind: plural,
  });
}

export function alreadyExists(group: string, plural: string, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(group, plural)} "${name}" already exists`,
    { name, group, kind: plural },
  );
}

export function conflict(group: string, plural: string, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(group, plural)} "${name}": ${why}`,
    { name, group, kind: plural },
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

/** 422 with one cause per broken field, in the "field: Kind of problem: detail" wording kubectl prints. */
export function invalid(
  group: string,
  kind: string,
  name: string,
  causes: StatusCause[],
): ApiError {
  const summary = causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ');
  return new ApiError(
    422,
    'Invalid',
    `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${causes.length > 1 ? `[${summary}]` : summary}`,
    { name, group, kind, causes },
  );
}

export function successStatus(details?: StatusDetails): StatusObject {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    ...(details ? { details } : {}),
    code: 200,
  };
}
