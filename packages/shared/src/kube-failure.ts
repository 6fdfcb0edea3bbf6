/**
 * What a Kubernetes API failure means to the console, read once from its Status: the kind of
 * failure, and the console's answer to it (a tRPC code, which tRPC turns into the HTTP status).
 * Pure, so the texts that put a refusal onto the form (server-errors.ts) read it too; the
 * parsing of what the client library throws is @mgpu/kube-client's `toKubeError`.
 */

export interface KubeCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** A Status as the console keeps it (`KubeError` is one). */
export interface KubeStatus {
  /** The HTTP status; 0 when the API server did not answer. */
  code: number;
  reason: string;
  message: string;
  causes: KubeCause[];
}

/** What a failed call means, whatever the verb: the one reading of Status codes. */
export type KubeFailure =
  /** No answer, 5xx: the cluster, not the request, is at fault; nothing was done. */
  | 'unavailable'
  | 'throttled'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  /** The name is taken, or the object changed under us (409). */
  | 'conflict'
  /** The resource version asked for is too old (410 Gone). */
  | 'gone'
  /** The object was refused: malformed (400) or invalid (422), with field causes. */
  | 'bad-request'
  | 'invalid'
  /** Any other answer: the console asked something the API does not serve. */
  | 'internal';

export function kubeFailureOf(kube: Pick<KubeStatus, 'code'>): KubeFailure {
  switch (kube.code) {
    case 400:
      return 'bad-request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 422:
      return 'invalid';
    case 429:
      return 'throttled';
    default:
      return kube.code === 0 || kube.code >= 500 ? 'unavailable' : 'internal';
  }
}

/**
 * The console's answer to a failure, as a tRPC error code (tRPC turns it into the HTTP status:
 * SERVICE_UNAVAILABLE is 503, UNPROCESSABLE_CONTENT 422, …). The names are tRPC's own, so the
 * BFF passes them straight to a `TRPCError`.
 */
export type ConsoleErrorCode =
  | 'SERVICE_UNAVAILABLE'
  | 'TOO_MANY_REQUESTS'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'BAD_REQUEST'
  | 'UNPROCESSABLE_CONTENT'
  | 'INTERNAL_SERVER_ERROR';

const CONSOLE_CODES: Record<KubeFailure, ConsoleErrorCode> = {
  unavailable: 'SERVICE_UNAVAILABLE',
  throttled: 'TOO_MANY_REQUESTS',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  'not-found': 'NOT_FOUND',
  conflict: 'CONFLICT',
  gone: 'CONFLICT',
  'bad-request': 'BAD_REQUEST',
  invalid: 'UNPROCESSABLE_CONTENT',
  internal: 'INTERNAL_SERVER_ERROR',
};

export const consoleCodeOf = (kube: Pick<KubeStatus, 'code'>): ConsoleErrorCode =>
  CONSOLE_CODES[kubeFailureOf(kube)];

/** What RBAC refused, as the API server's 403 says it (`User "u" cannot create resource …`). */
export interface ForbiddenAction {
  user: string;
  verb: string;
  /** The resource with its API group (`deployments.apps`), as `kubectl auth can-i` takes it. */
  resource: string;
  /** Absent for a cluster-scoped refusal. */
  namespace?: string;
}

const RBAC_REFUSAL =
  /User "([^"]*)" cannot (\S+) resource "([^"]+)"(?: in API group "([^"]*)")?(?: in the namespace "([^"]+)")?/;

/**
 * The verb, resource and namespace of an RBAC refusal, read from the Status message
 * kube-apiserver's authorizer writes; undefined for any other 403 (a quota's, an admission
 * webhook's), whose message is then shown as it is.
 */
export function forbiddenActionOf(
  kube: Pick<KubeStatus, 'code' | 'message'>,
): ForbiddenAction | undefined {
  if (kube.code !== 403) return undefined;
  const match = RBAC_REFUSAL.exec(kube.message);
  if (!match) return undefined;
  const [, user = '', verb = '', resource = '', group, namespace] = match;
  return {
    user,
    verb,
    resource: group ? `${resource}.${group}` : resource,
    ...(namespace ? { namespace } : {}),
  };
}
