import {
  allocationOf,
  applyAllocation,
  buildDeployment,
  type CheckOptions,
  checkRequest,
  describeRejections,
  type Lang,
  PreviewInputSchema,
  type PreviewResult,
  PreviewResultSchema,
  placePod,
  podDemandOf,
  type WorkloadRequest,
} from '@mgpu/shared';
import {
  currentNodeStates,
  currentPools,
  currentQuotas,
  inventoryOf,
} from '../cluster/inventory.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';

/** Replicas beyond this are not previewed one by one: the answer would not fit on a screen. */
const MAX_PREVIEWED_REPLICAS = 16;

/** The check with the cluster-aware rules, against the cluster as the informers see it now. */
export function checkWithCluster(ctx: BffContext, request: WorkloadRequest, lang: Lang) {
  const states = currentNodeStates(ctx);
  // Until the nodes were listed once the cluster is unknown, not empty: judge the request by
  // its own rules only rather than blame it for a cluster nobody has seen yet.
  const known = ctx.cluster.nodes.health.synced;
  // Unset, the namespace-reserved rule keeps DEFAULT_RESERVED_NAMESPACES.
  const options: CheckOptions = {
    lang,
    modelLabel: ctx.modelLabel,
    ...(known ? { inventory: inventoryOf(currentPools(ctx), currentQuotas(ctx)) } : {}),
    ...(ctx.reservedNamespaces ? { reservedNamespaces: ctx.reservedNamespaces } : {}),
  };
  const check = checkRequest(request, options);
  return { states, check };
}

/** The check with the cluster-aware rules, plus where each replica would land right now. */
export function previewWorkload(
  ctx: BffContext,
  request: WorkloadRequest,
  lang: Lang,
): PreviewResult {
  const { states, check } = checkWithCluster(ctx, request, lang);
  const replicas: PreviewResult['placement']['replicas'] = [];
  // Placement needs every GPU container's shares, even while (say) the name is still empty.
  const gpuContainers = request.containers.filter(
    (c) => c.gpu !== undefined && c.gpu.type !== 'none',
  );
  if (gpuContainers.length === check.containers.length) {
    const { modelLabel } = ctx;
    const template = buildDeployment(request, check.containers, { modelLabel }).spec.template;
    const demand = podDemandOf(
      {
        metadata: { ...template.metadata, name: request.name, namespace: request.namespace },
        spec: template.spec,
      },
      { modelLabel },
    );
    // The shared states are read-only: a node the next replica must see as fuller is cloned.
    let working = states;
    const count = Math.min(Math.max(request.replicas, 0), MAX_PREVIEWED_REPLICAS);
    for (let replica = 0; replica < count; replica++) {
      // The preview, unlike the scheduler, also says why the other nodes would not take it.
      const result = placePod(demand, working, {
        cardPolicy: ctx.cardPolicy,
        modelLabel,
        explainRejected: true,
      });
      if (!result.ok) {
        replicas.push({
          replica,
          ok: false,
          totalNodes: result.totalNodes,
          rejections: result.rejections,
          message: describeRejections(result),
        });
        break;
      }
      replicas.push({
        replica,
        ok: true,
        node: result.node,
        cards: result.cards,
        fitting: result.fitting ?? 1,
        rejections: result.rejections ?? [],
      });
      // The next replica sees this one's cards as taken, as the scheduler would.
      working = working.map((state) => {
        if (state.name !== result.node) return state;
        const booked = structuredClone(state);
        applyAllocation(booked, allocationOf(demand, result.node, result.cards));
        return booked;
      });
    }
  }
  const { manifest, ...rest } = check;
  return {
    ...rest,
    ...(manifest ? { manifest: manifest as unknown as Record<string, unknown> } : {}),
    placement: { cardPolicy: ctx.cardPolicy, replicas },
  };
}

/** `workload.preview`: request → check result with cluster-aware rules, manifest and placement. */
export const workloadPreview = publicProcedure
  .input(PreviewInputSchema)
  .output(PreviewResultSchema)
  .query(({ ctx, input }) => previewWorkload(ctx, input.request, input.lang));
