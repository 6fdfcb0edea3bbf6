import { TRPCError } from '@trpc/server';
import { toKubeError } from '../cluster/kube-errors.js';

const CODES: Record<number, TRPCError['code']> = {
  0: 'SERVICE_UNAVAILABLE',
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'CONFLICT',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
};

/** A Kubernetes failure outside a create (reads, deletes) as a tRPC error with the same meaning. */
export function kubeFailure(error: unknown): TRPCError {
  const kube = toKubeError(error);
  return new TRPCError({
    code: CODES[kube.code] ?? 'INTERNAL_SERVER_ERROR',
    message: kube.message,
    cause: kube,
  });
}
