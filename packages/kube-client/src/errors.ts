/**
 * Kubernetes Status errors as the rest of the console sees them: code, reason and field causes
 * in a `KubeError`. Nothing else parses Status objects; what a code means and the console's
 * answer to it are `kubeFailureOf` and `consoleCodeOf` in @mgpu/shared (pure, beside the texts).
 */
import { ApiException } from '@kubernetes/client-node';
import type { KubeCause, KubeStatus } from '@mgpu/shared';

export class KubeError extends Error implements KubeStatus {
  override readonly name = 'KubeError';
  constructor(
    /** The HTTP status of the Status; 0 when the API server did not answer. */
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: KubeCause[] = [],
  ) {
    super(message);
  }
}

interface StatusLike {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: KubeCause[] };
}

const parseStatus = (body: unknown): StatusLike | undefined => {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusLike;
    } catch {
      return undefined;
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusLike) : undefined;
};

/**
 * Turns what `@kubernetes/client-node` throws (an ApiException with `code` and a Status `body`,
 * or a network error) into a `KubeError`; code 0 means the API server did not answer, and its
 * message is then the network error's (the sentence around it is the caller's, in its language).
 */
export function toKubeError(error: unknown): KubeError {
  if (error instanceof KubeError) return error;
  if (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'number'
  ) {
    const status = parseStatus('body' in error ? error.body : undefined);
    return new KubeError(
      status?.code ?? error.code,
      status?.reason ?? 'Unknown',
      status?.message ?? (error instanceof Error ? error.message : `HTTP ${error.code}`),
      status?.details?.causes ?? [],
    );
  }
  return new KubeError(
    0,
    'ServiceUnavailable',
    error instanceof Error ? error.message : String(error),
  );
}

/** The HTTP status of an API answer; undefined for anything that is not one (a network error). */
export const statusCode = (error: unknown): number | undefined =>
  error instanceof ApiException || error instanceof KubeError ? error.code || undefined : undefined;
export const isNotFound = (error: unknown) => statusCode(error) === 404;
export const isConflict = (error: unknown) => statusCode(error) === 409;
