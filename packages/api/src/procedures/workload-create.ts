import { createHash } from 'node:crypto';
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { type KubeError, toKubeError } from '@mgpu/kube-client';
import {
  buildHeadlessService,
  type CreatableKind,
  CreateInputSchema,
  CreateResultSchema,
  describeKubeRefusal,
  describeServerError,
  type Lang,
  type RuleError,
  statefulSetServiceProblem,
  type WorkloadRequest,
  workloadKindOf,
} from '@mgpu/shared';
import type { TRPCError } from '@trpc/server';
import type { LiveWorkload } from '../cluster/workload-objects.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { checkWrite } from './workload-preview.js';

/** Annotation that ties a workload to the form submission that made it (idempotent retries). */
export const CLIENT_REQUEST_ANNOTATION = 'mgpu.console.io/client-request-id';

/** An API-server refusal of a create or an update: its Status onto the form's fields. */
export function refusal(kube: KubeError, request: WorkloadRequest, lang: Lang): TRPCError {
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
  | { kind: 'same'; deployment: LiveWorkload }
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
  const kind = workloadKindOf(request);
  const live = (d: { metadata?: V1ObjectMeta }) =>
    !d.metadata?.deletionTimestamp &&
    d.metadata?.annotations?.[CLIENT_REQUEST_ANNOTATION] === clientRequestId;
  const informer = ctx.cluster.workloads.informer(kind);
  // Right after a restart the informer may not have listed yet: an empty index then proves
  // nothing, so the API server is asked by label instead (a retry must never duplicate).
  const indexed = informer.health.synced
    ? informer
        .index(
          CLIENT_REQUEST_ANNOTATION,
          (d) => d.metadata?.annotations?.[CLIENT_REQUEST_ANNOTATION],
        )
        .get(clientRequestId)
        .find(live)
    : undefined;
  const byId: LiveWorkload | undefined = informer.health.synced
    ? indexed && ({ ...indexed, kind } as LiveWorkload)
    : (
        await ctx.cluster.workloads.listLabelled(
          kind,
          `${CLIENT_REQUEST_LABEL}=${clientRequestLabel(clientRequestId)}`,
        )
      ).find(live);
  if (!informer.health.synced && byId === undefined) askServer = true;
  // The informer may lag a create that just happened; after a 409 the API server has the last
  // word (before the create, that same 409 path covers the race without an extra round trip).
  const candidate =
    byId ??
    (askServer
      ? await ctx.cluster.workloads
          .read(kind, request.namespace, request.name)
          .catch(() => undefined)
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
 * A StatefulSet's headless Service (its `serviceName`), owned by it so it goes with it; without
 * an owner, the dry run made before either is created. One that exists already is left as it is
 * if it is fit (a retry's, or the operator's own identical one, `requireFitService`), else refused.
 */
async function ensureHeadlessService(
  ctx: BffContext,
  kind: CreatableKind,
  request: WorkloadRequest,
  owner: LiveWorkload | undefined,
  lang: Lang,
): Promise<void> {
  if (kind !== 'StatefulSet') return;
  const service = buildHeadlessService(request);
  const ownerReferences = owner && [
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: request.name,
      uid: owner.metadata?.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  try {
    await ctx.cluster.workloads.createService(
      request.namespace,
      {
        ...service,
        metadata: { ...service.metadata, ...(ownerReferences && { ownerReferences }) },
      },
      owner === undefined,
    );
  } catch (error) {
    const kube = toKubeError(error);
    if (kube.code !== 409) throw refusal(kube, request, lang);
    // One exists: ours from a retry, or one made since `requireFitService` looked — checked again.
    await requireFitService(ctx, kind, request, lang);
  }
}

/**
 * Rule `statefulset-service`: a Service of the StatefulSet's name that exists already is reused
 * only if it is the headless one the console would make; any other (a cluster IP, another
 * selector) would leave the pods without their DNS names or govern someone else's, so the create
 * is refused before anything is made. Read as the operator: their RBAC decides.
 */
async function requireFitService(
  ctx: BffContext,
  kind: CreatableKind,
  request: WorkloadRequest,
  lang: Lang,
): Promise<void> {
  if (kind !== 'StatefulSet') return;
  const existing = await ctx.cluster.workloads
    .readService(request.namespace, request.name)
    .catch((error: unknown) => {
      throw refusal(toKubeError(error), request, lang);
    });
  const problem = existing && statefulSetServiceProblem(existing, request);
  if (problem === undefined) return;
  throw ruleFailure('CONFLICT', [
    describeServerError('statefulset-service', 'name', problem, request, lang),
  ]);
}

/**
 * `workload.create`: re-validates everything (the browser is never trusted) with the
 * cluster-aware rules (waiting briefly for the nodes' first list, `checkWrite`), asks the API
 * server for a dry run of every object it will make, then creates the object of the request's
 * kind (a StatefulSet with its headless Service, refused up front when a Service of that name
 * exists that is not that one, `statefulset-service`; if the Service is refused even so, the
 * StatefulSet is deleted again). A retry with the same client request id returns what the first
 * attempt made instead of a second one or an error.
 */
export const workloadCreate = publicProcedure
  .input(CreateInputSchema)
  .output(CreateResultSchema)
  .mutation(async ({ ctx, input }) => {
    const { request, clientRequestId, lang } = input;
    // The same rules the form ran, plus the cluster-aware ones; the browser is never trusted.
    const { check } = await checkWrite(ctx, request, lang);
    if (!check.valid || check.manifest === undefined)
      throw ruleFailure('BAD_REQUEST', check.errors as RuleError[]);
    const kind = workloadKindOf(request);
    const manifest = check.manifest as {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    };
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
    const result = (deployment: LiveWorkload, created: boolean) => ({
      kind,
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
      if (earlier?.kind === 'same') {
        await ensureHeadlessService(ctx, kind, request, earlier.deployment, lang);
        return result(earlier.deployment, false);
      }
      if (earlier?.kind === 'other') {
        throw ruleFailure('CONFLICT', [
          describeServerError('client-request-reused', '', earlier.where, request, lang),
        ]);
      }
      return undefined;
    };
    const retried = await answerRetry(false);
    if (retried) return retried;
    await requireFitService(ctx, kind, request, lang);
    for (const dryRun of [true, false]) {
      let created: LiveWorkload;
      try {
        created = await ctx.cluster.workloads.create(kind, request.namespace, manifest, dryRun);
      } catch (error) {
        const kube = toKubeError(error);
        // A concurrent retry may have won the race between our look-up and this create.
        const raced = kube.code === 409 ? await answerRetry(true) : undefined;
        if (raced) return raced;
        throw refusal(kube, request, lang);
      }
      if (dryRun) {
        // Both dry runs pass before either object is made: never half a StatefulSet.
        await ensureHeadlessService(ctx, kind, request, undefined, lang);
        continue;
      }
      try {
        await ensureHeadlessService(ctx, kind, request, created, lang);
      } catch (error) {
        // Refused after its dry run passed: the StatefulSet goes again. Should that delete fail
        // too, a retry with the same client request id finds the StatefulSet and adds the Service.
        await ctx.cluster.workloads
          .delete(
            kind,
            request.namespace,
            request.name,
            { uid: created.metadata?.uid ?? '' },
            'Background',
          )
          .catch(() => undefined);
        throw error;
      }
      return result(created, true);
    }
    throw new Error('unreachable: the create loop returns or throws');
  });
