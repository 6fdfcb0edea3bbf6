/**
 * Kubernetes Status errors as the rest of the BFF sees them. Procedures never parse Status
 * objects themselves: they get a `KubeError` with the code, reason and field causes.
 */
export interface KubeCause {
  reason?: string;
  message?: string;
  field?: string;
}

export class KubeError extends Error {
  override readonly name = 'KubeError';
  constructor(
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
 * or a network error) into a `KubeError`; code 0 means the API server did not answer.
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
  const message = error instanceof Error ? error.message : String(error);
  return new KubeError(0, 'ServiceUnavailable', `the Kubernetes API did not answer: ${message}`);
}
