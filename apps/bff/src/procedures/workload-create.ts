import { createHash } from 'node:crypto';
import type { V1Deployment } from '@kubernetes/client-node';
import { type KubeError, toKubeError } from '@mgpu/kube-client';
import {
  CreateInputSchema,
  CreateResultSchema,
  describeKubeRefusal,
  describeServerError,
  type Lang,
  type RuleError,
  type WorkloadRequest,
} from '@mgpu/shared';
import type { TRPCError } from '@trpc/server';

import type { BffContext } from '../trpc/context.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { checkWithCluster } from './workload-preview.js';

/** Annotation that ties a Deployment to the form submission that made it (idempotent retries). */
export const CLIENT_REQUEST_ANNOTATION = 'mgpu.console.io/client-request-id';

/** The API server refused the create: its Status onto the form's fields. */
function refusal(kube: KubeError, request: WorkloadRequest, lang: Lang): TRPCError {
  const { code, errors } = describeKubeRefusal(kube, request, lang);
  return ruleFailure(code, errors);
}

/** Hash of the request a submission made, so a reused id with a changed request is caught. */
export const REQUEST_HASH_ANNOTATION = 'mgpu.console.io/request-hash';

/**
 * A label with a digest of the client request id (a label value is short and plain; the id is
 * neither), so the API server can find an earlier attempt when the informer cannot yet.
 */
export const CLIENT_REQUEST_LABEL = 'mgpu.console.io/client-request';
const clientRequestLabel = (clientRequestId: string) =>
  createHash('sha256').update(clientRequestId).digest('hex').slice(0, 32);

const requestHash = (request: WorkloadRequest) =>
  createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 32);

type Earlier =
  | { kind: 'same'; deployment: V1Deployment }
  | { kind: 'other'; where: string }
  | undefined;

/**
 * What an earlier attempt with this id made: the same Deployment from the same request (a
 * retry: answer with it), something else (the id was reused: refuse), or nothing.
 */
async function earlierAttempt(
  ctx: BffContext,
  request: WorkloadRequest,
  clientRequestId: string,
  hash: string,
  askServer: boolean,
): Promise<Earlier> {
  const live = (d: V1Deployment) =>
    !d.metadata?.deletionTimestamp &&
    d.metadata?.annotations?.[CLIENT_REQUEST_ANNOTATION] === clientRequestId;
  // Right after a restart the informer may not have listed yet: an empty index then proves
  // nothing, so the API server is asked by label instead (a retry must never duplicate).
  const byId = ctx.cluster.deployments.health.synced
    ? ctx.cluster.deployments
        .index(
          CLIENT_REQUEST_ANNOTATION,
          (d) => d.metadata?.annotations?.[CLIENT_REQUEST_ANNOTATION],
        )
        .get(clientRequestId)
        .find(live)
    : (
        await ctx.cluster.listDeploymentsLabelled(
          `${CLIENT_REQUEST_LABEL}=${clientRequestLabel(clientRequestId)}`,
        )
      ).find(live);
  // Objects made before the label existed are found by their name, as after a 409.
  if (!ctx.cluster.deployments.health.synced && byId === undefined) askServer = true;
  // The informer may lag a create that just happened; after a 409 the API server has the last
  // word (before the create, that same 409 path covers the race without an extra round trip).
  const candidate =
    byId ??
    (askServer
      ? await ctx.cluster.readDeployment(request.namespace, request.name).catch(() => undefined)
      : undefined);
  const annotations = candidate?.metadata?.annotations ?? {};
  if (candidate === undefined || annotations[CLIENT_REQUEST_ANNOTATION] !== clientRequestId)
    return undefined;
  const sameObject =
    candidate.metadata?.namespace === request.namespace &&
    candidate.metadata?.name === request.name;
  return sameObject && annotations[REQUEST_HASH_ANNOTATION] === hash
    ? { kind: 'same', deployment: candidate }
    : { kind: 'other', where: `${candidate.metadata?.namespace}/${candidate.metadata?.name}` };
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
    const hash = requestHash(request);
    if (clientRequestId !== undefined) {
      manifest.metadata = {
        ...manifest.metadata,
        labels: {
          ...manifest.metadata?.labels,
          [CLIENT_REQUEST_LABEL]: clientRequestLabel(clientRequestId),
        },
        annotations: {
          ...manifest.metadata?.annotations,
          [CLIENT_REQUEST_ANNOTATION]: clientRequestId,
          [REQUEST_HASH_ANNOTATION]: hash,
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
    const answerRetry = async (askServer: boolean) => {
      if (clientRequestId === undefined) return undefined;
      const earlier = await earlierAttempt(ctx, request, clientRequestId, hash, askServer).catch(
        (error: unknown) => {
          // The look-up itself failed (the API server did not answer): nothing is created.
          throw refusal(toKubeError(error), request, lang);
        },
      );
      if (earlier?.kind === 'same') return result(earlier.deployment, false);
      if (earlier?.kind === 'other') {
        throw ruleFailure('CONFLICT', [
          describeServerError('client-request-reused', '', earlier.where, request, lang),
        ]);
      }
      return undefined;
    };
    const retried = await answerRetry(false);
    if (retried) return retried;
    for (const dryRun of [true, false]) {
      try {
        const deployment = await ctx.cluster.createDeployment(request.namespace, manifest, dryRun);
        if (!dryRun) return result(deployment, true);
      } catch (error) {
        const kube = toKubeError(error);
        // A concurrent retry may have won the race between our look-up and this create.
        const raced = kube.code === 409 ? await answerRetry(true) : undefined;
        if (raced) return raced;
        throw refusal(kube, request, lang);
      }
    }
    throw new Error('unreachable: the create loop returns or throws');
  });
