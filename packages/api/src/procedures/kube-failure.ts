import { toKubeError } from '@mgpu/kube-client';
import {
  clusterUnavailableMessage,
  consoleCodeOf,
  describeForbidden,
  kubeFailureOf,
  type Lang,
} from '@mgpu/shared';
import { TRPCError } from '@trpc/server';
import { ruleFailure } from '../trpc/init.js';

/**
 * A Kubernetes failure outside a create (reads, deletes) as a tRPC error with the same meaning.
 * An RBAC refusal (403) is the form-level rule `forbidden`, naming the verb, resource and
 * namespace in `lang`: with per-operator sign-in it is the operator's own RBAC that said no.
 */
export function kubeFailure(error: unknown, lang: Lang = 'en'): TRPCError {
  const kube = toKubeError(error);
  if (kubeFailureOf(kube) === 'forbidden')
    return ruleFailure(consoleCodeOf(kube), [describeForbidden(kube, lang)]);
  return new TRPCError({
    code: consoleCodeOf(kube),
    // No answer at all: the sentence around the network error is the one the form shows too.
    message: kube.code === 0 ? clusterUnavailableMessage(kube.message) : kube.message,
    cause: kube,
  });
}
