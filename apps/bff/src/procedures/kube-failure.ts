import { toKubeError } from '@mgpu/kube-client';
import { clusterUnavailableMessage, consoleCodeOf } from '@mgpu/shared';
import { TRPCError } from '@trpc/server';

/** A Kubernetes failure outside a create (reads, deletes) as a tRPC error with the same meaning. */
export function kubeFailure(error: unknown): TRPCError {
  const kube = toKubeError(error);
  return new TRPCError({
    code: consoleCodeOf(kube),
    // No answer at all: the sentence around the network error is the one the form shows too.
    message: kube.code === 0 ? clusterUnavailableMessage(kube.message) : kube.message,
    cause: kube,
  });
}
