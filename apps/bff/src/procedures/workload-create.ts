import type { V1Deployment } from '@kubernetes/client-node';
import {
  CreateInputSchema,
  CreateResultSchema,
  describeServerError,
  type Lang,
  type RuleError,
  requestPathOfObjectField,
  type ServerRuleError,
  type WorkloadRequest,
} from '@mgpu/shared';
import type { TRPCError } from '@trpc/server';
import { type KubeError, toKubeError } from '../cluster/kube-errors.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { checkWithCluster } from './workload-preview.js';

/** Annotation that ties a Deployment to the form submission that made it (idempotent retries). */
export const CLIENT_REQUEST_ANNOTATION = 'mgpu.console.io/client-request-id';

function refusal(kube: KubeError, request: WorkloadRequest, lang: Lang): TRPCError {
  const describe = (rule: ServerRuleError['rule'], path: string, detail: string) =>
    describeServerError(rule, path, detail, request, lang);
  switch (kube.code) {
    case 409:
      return ruleFailure('CONFLICT', [describe('name-taken', 'name', kube.message)]);
    case 403:
      return ruleFailure('FORBIDDEN', [describe('forbidden', '', kube.message)]);
    case 404:
      return ruleFailure('NOT_FOUND', [describe('namespace-not-found', 'namespace', kube.message)]);
    case 0:
      return ruleFailure('SERVICE_UNAVAILABLE', [
        describe('cluster-unavailable', '', kube.message),
      ]);
    default: {
      const causes = kube.causes.length > 0 ? kube.causes : [{ message: kube.message }];
      return ruleFailure(
        kube.code === 422 ? 'UNPROCESSABLE_CONTENT' : 'BAD_REQUEST',
        causes.map((cause) =>
          describe(
            'kubernetes-invalid',
            requestPathOfObjectField(cause.field, request),
            `${cause.field ? `${cause.field}: ` : ''}${cause.message ?? kube.message}`,
          ),
        ),
      );
    }
  }
}

/** On a 409, the existing Deployment counts as ours only if this very submission made it. */
async function existingFromSameRequest(
  ctx: BffContext,
  request: WorkloadRequest,
  clientRequestId: string,
): Promise<V1Deployment | undefined> {
  const existing = await ctx.cluster
    .readDeployment(request.namespace, request.name)
    .catch(() => undefined);
  return existing?.metadata?.annotations?.[CLIENT_REQUEST_ANNOTATION] === clientRequestId
    ? existing
    : undefined;
}

/**
 * `workload.create`: re-validates everything (the browser is never trusted), asks the API server
 * for a dry run, then creates. A retry with the same client request id returns the Deployment the
 * first attempt made instead of a second one or an error.
 */
export const workloadCreate = publicProcedure
  .input(CreateInputSchema)
  .output(CreateResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { request, clientRequestId, lang } = input;
    // The same rules the form ran, plus the cluster-aware ones; the browser is never trusted.
    const { check } = checkWithCluster(ctx, request, lang);
    if (!check.valid || check.manifest === undefined)
      throw ruleFailure('BAD_REQUEST', check.errors as RuleError[]);
    const manifest = check.manifest as V1Deployment;
    if (clientRequestId !== undefined) {
      manifest.metadata = {
        ...manifest.metadata,
        annotations: {
          ...manifest.metadata?.annotations,
          [CLIENT_REQUEST_ANNOTATION]: clientRequestId,
        },
      };
    }
    const result = (deployment: V1Deployment, created: boolean) => ({
      namespace: request.namespace,
      name: request.name,
      uid: deployment.metadata?.uid ?? '',
      created,
      clientRequestId: clientRequestId ?? null,
      deployment: JSON.parse(JSON.stringify(deployment)) as Record<string, unknown>,
    });
    for (const dryRun of [true, false]) {
      try {
        const deployment = await ctx.cluster.createDeployment(request.namespace, manifest, dryRun);
        if (!dryRun) return result(deployment, true);
      } catch (error) {
        const kube = toKubeError(error);
        if (kube.code === 409 && clientRequestId !== undefined) {
          const same = await existingFromSameRequest(ctx, request, clientRequestId);
          if (same) return result(same, false);
        }
        throw refusal(kube, request, lang);
      }
    }
    throw new Error('unreachable: the create loop returns or throws');
  });
