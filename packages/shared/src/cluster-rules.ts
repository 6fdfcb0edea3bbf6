/** The cluster-aware rules of spec §3: what the cluster's GPU inventory can hold. */

import { type ContainerShare, largestWholeGiB } from './card-shares.js';
import type { GpuInventory, GpuPool } from './inventory.js';
import { knownModels } from './inventory.js';
import { claimsPerIdleCard } from './ledger/book.js';
import { containerResources } from './manifest.js';
import {
  podQuotaUsage,
  QUOTA_CORE,
  QUOTA_MEMORY,
  type QuotaRollout,
  quotaResourceOf,
  rolloutPeakCharge,
} from './quota.js';
import {
  type ComputePolicy,
  DEFAULT_NODE_POLICY,
  isComputePolicy,
  MAX_CARDS,
  type WorkloadRequest,
} from './request.js';
import { MAX_REPLICAS, PER_CARD_MEMORY_MIN_MIB, type Violation } from './rules.js';
import { MAX_INSTANCES_PER_CARD, VKE } from './vke.js';

/** The request field each GPU quota resource is typed into. */
const QUOTA_FIELDS: Record<string, 'compute' | 'memoryGiB' | 'cards'> = {
  [QUOTA_CORE]: 'compute',
  [QUOTA_MEMORY]: 'memoryGiB',
  [quotaResourceOf(VKE.nvidiaResource)]: 'cards',
};

/**
 * `quota-exceeded`: the replicas of this request, each charged what its manifest requests (the
 * same function the embedded API server's admission uses), on top of what the namespace's quotas
 * already have used. The API server refuses pod by pod, so a Deployment over quota is created
 * and its pods never appear; the form says so before that. An edit's rolling update
 * (`rollout`) is charged at its peak, old and surge pods together: one that fits once rolled
 * out but not during the rollout stalls half-way, so it is refused with the maxSurge that fits.
 */
function evaluateQuotas(
  request: WorkloadRequest,
  shares: readonly ContainerShare[],
  quotas: NonNullable<GpuInventory['quotas']>,
  rollout: QuotaRollout | undefined,
  violations: Violation[],
): void {
  const replicas = request.replicas;
  if (!Number.isInteger(replicas) || replicas <= 0) return;
  const containers = shares.map((share) => ({
    share,
    resources: { requests: containerResources(share) },
  }));
  const perPod = podQuotaUsage({ containers });
  for (const quota of quotas) {
    if (quota.namespace !== request.namespace) continue;
    for (const [resource, limit] of Object.entries(quota.hard)) {
      const charge = perPod[resource];
      const field = QUOTA_FIELDS[resource];
      if (charge === undefined || charge === 0 || field === undefined) continue;
      const used = quota.used[resource] ?? 0;
      const steady = charge * replicas;
      const peak =
        rollout === undefined ? steady : rolloutPeakCharge(charge, replicas, resource, rollout);
      if (used + Math.max(steady, peak) <= limit) continue;
      const left = Math.max(limit - used, 0);
      // Fits once rolled out, not while old and new pods overlap: a smaller surge is the fix.
      let surge: { maxSurge: number; fits: number } | undefined;
      if (rollout !== undefined && used + steady <= limit) {
        let fits = rollout.maxSurge - 1;
        while (
          fits > 0 &&
          used + rolloutPeakCharge(charge, replicas, resource, rollout, fits) > limit
        )
          fits -= 1;
        surge = { maxSurge: rollout.maxSurge, fits: Math.max(fits, 0) };
      }
      // The first container that asks for the resource carries the error: its field is the fix.
      const first = containers.find(
        (container) => (podQuotaUsage({ containers: [container] })[resource] ?? 0) > 0,
      );
      violations.push({
        rule: 'quota-exceeded',
        path: `containers.${first?.share.index ?? 0}.gpu.${field}`,
        params: {
          namespace: quota.namespace,
          quota: quota.name,
          container: first?.share.name ?? '',
          field,
          resource,
          replicas,
          perPod: charge,
          // The peak when only the rollout overflows, else what the pods ask for once rolled out.
          requested: surge !== undefined ? peak : steady,
          used,
          limit,
          maxPerPod: Math.floor(left / replicas),
          maxReplicas: Math.floor(left / charge),
          ...(surge !== undefined ? { surge } : {}),
        },
      });
    }
  }
}

/** The cluster-aware rules of spec §3 for one container whose own fields are valid. */
function evaluateAgainstInventory(
  share: ContainerShare,
  policy: ComputePolicy | undefined,
  unknownPolicy: boolean,
  inventory: GpuInventory,
  violations: Violation[],
): void {
  const base = `containers.${share.index}.gpu`;
  const container = share.name;
  const model = share.model;
  if (model !== undefined && !inventory.pools.some((pool) => pool.model === model)) {
    violations.push({
      rule: 'model-unknown',
      path: `${base}.model`,
      params: { container, model, known: knownModels(inventory) },
    });
    return;
  }
  const ofType = inventory.pools.filter(
    (pool) => pool.resourceType === share.type && (model === undefined || pool.model === model),
  );
  const maxOf = (pools: GpuPool[], read: (pool: GpuPool) => number) =>
    pools.reduce((max, pool) => Math.max(max, read(pool)), 0);

  if (share.perCard.memoryMiB !== null && ofType.length > 0) {
    const modelMiB = maxOf(ofType, (pool) => pool.memoryMiBPerCard);
    if (share.perCard.memoryMiB > modelMiB) {
      const total = share.memoryMiB ?? 0;
      const needed = Math.ceil(total / modelMiB);
      violations.push({
        rule: 'per-card-memory-exceeds-model',
        path: `${base}.memoryGiB`,
        params: {
          container,
          ...(model !== undefined ? { model } : {}),
          perCardMiB: share.perCard.memoryMiB,
          modelMiB,
          maxGiB: String(largestWholeGiB(modelMiB, share.cards)),
          // The suggested card count must split the memory into whole MiB too.
          ...(needed <= MAX_CARDS &&
          total % needed === 0 &&
          total / needed >= PER_CARD_MEMORY_MIN_MIB &&
          share.computePercent % needed === 0 &&
          share.computePercent / needed <= 100
            ? { cardsSuggestion: needed }
            : {}),
        },
      });
    }
  }

  // Fractional pods go only to pools of their own policy; whole-card pods skip the match (§5).
  const podPolicy = policy ?? DEFAULT_NODE_POLICY;
  const fractional = share.type === 'mgpu' && !share.wholeCards;
  const schedulable =
    fractional && !unknownPolicy ? ofType.filter((pool) => pool.policy === podPolicy) : ofType;
  const maxCards = maxOf(schedulable, (pool) => pool.cardsPerNode);
  if (share.cards > maxCards) {
    // Without multi-card sharing, whole mGPU cards are counted by the compute field.
    const cardsField = share.type === 'mgpu' && !share.multiCard ? 'compute' : 'cards';
    violations.push({
      rule: 'cards-exceed-node',
      path: `${base}.${cardsField}`,
      params: {
        container,
        field: cardsField,
        cards: share.cards,
        ...(model !== undefined ? { model } : {}),
        ...(fractional && !unknownPolicy ? { policy: podPolicy } : {}),
        maxCards,
      },
    });
  }
}

/**
 * How many pods of these containers an empty cluster could hold at most: per matching node, the
 * fewest of each container's and of the whole pod's fits by the 16-instance, 100 % and memory
 * limits of its cards; summed over nodes. It over-counts (largest card count per pool, no
 * packing losses), so a request it refuses can never be placed. Undefined for pods of mixed types.
 */
export function podsClusterHolds(
  shares: readonly ContainerShare[],
  policy: ComputePolicy | undefined,
  unknownPolicy: boolean,
  inventory: GpuInventory,
): number | undefined {
  const first = shares[0];
  if (first === undefined || shares.some((share) => share.type !== first.type)) return undefined;
  const model = shares.find((share) => share.model !== undefined)?.model;
  const podPolicy = policy ?? DEFAULT_NODE_POLICY;
  const fractional = shares.some((share) => share.type === 'mgpu' && !share.wholeCards);
  const pools = inventory.pools.filter(
    (pool) =>
      pool.resourceType === first.type &&
      (model === undefined || pool.model === model) &&
      (!fractional || unknownPolicy || pool.policy === podPolicy),
  );
  let total = 0;
  for (const pool of pools) {
    const cards = pool.cardsPerNode;
    const cardMiB = pool.memoryMiBPerCard;
    let perNode = Number.POSITIVE_INFINITY;
    let instances = 0;
    let percent = 0;
    let mib = 0;
    for (const share of shares) {
      if (share.cards > cards) {
        perNode = 0;
        break;
      }
      const perCard = claimsPerIdleCard(share, cardMiB);
      perNode = Math.min(perNode, Math.floor((perCard * cards) / share.cards));
      instances += share.cards;
      percent += share.computePercent;
      mib += share.wholeCards ? cardMiB * share.cards : (share.memoryMiB ?? 0);
    }
    if (perNode > 0) {
      perNode = Math.min(
        perNode,
        Math.floor((MAX_INSTANCES_PER_CARD * cards) / instances),
        Math.floor((100 * cards) / percent),
        mib > 0 ? Math.floor((cardMiB * cards) / mib) : perNode,
      );
    }
    total += perNode * pool.nodes;
  }
  return total;
}

/** The cluster-aware rules for the whole request, after every container's own rules. */
export function evaluateAgainstCluster(
  request: WorkloadRequest,
  policy: string | undefined,
  shares: readonly ContainerShare[],
  firstModel: string | undefined,
  inventory: GpuInventory,
  violations: Violation[],
): void {
  const known = policy !== undefined && isComputePolicy(policy) ? policy : undefined;
  const unknownPolicy = policy !== undefined && known === undefined;
  if (inventory.quotas !== undefined)
    evaluateQuotas(request, shares, inventory.quotas, inventory.rollout, violations);
  const before = violations.length;
  for (const share of shares)
    evaluateAgainstInventory(share, known, unknownPolicy, inventory, violations);
  const gpuContainers = request.containers.filter(
    (container) => container.gpu !== undefined && container.gpu.type !== 'none',
  ).length;
  const replicas = request.replicas;
  // Out of range is `replicas-range`'s to say.
  if (!Number.isInteger(replicas) || replicas <= 0 || replicas > MAX_REPLICAS) return;
  // `replicas-exceed-cluster` by the GPU shape only when every GPU container is understood and
  // fits some node; by the nodes' pod slots for every pod, GPU or not.
  const byShape =
    violations.length === before && shares.length > 0 && shares.length === gpuContainers
      ? podsClusterHolds(shares, known, unknownPolicy, inventory)
      : undefined;
  const slots = inventory.podSlots;
  if (
    slots !== undefined &&
    replicas > slots.pods &&
    (byShape === undefined || slots.pods < byShape)
  )
    violations.push({
      rule: 'replicas-exceed-cluster',
      path: 'replicas',
      params: { value: replicas, max: slots.pods, nodes: slots.nodes },
    });
  else if (byShape !== undefined && replicas > byShape)
    violations.push({
      rule: 'replicas-exceed-cluster',
      path: 'replicas',
      params: {
        value: replicas,
        max: byShape,
        ...(firstModel !== undefined ? { model: firstModel } : {}),
      },
    });
}
