import type { CardType } from './ledger/claim.js';
import type { NamespaceQuota, QuotaRollout } from './quota.js';
import type { ComputePolicy } from './request.js';

/**
 * One node pool as the cluster-aware rules see it: nodes of one GPU model, resource type and
 * compute policy. The BFF derives it from the nodes' labels and allocatable (spec §5).
 */
export interface GpuPool {
  model: string;
  resourceType: CardType;
  policy: ComputePolicy;
  /** The largest card count of a node in the pool. */
  cardsPerNode: number;
  memoryMiBPerCard: number;
  nodes: number;
}

/** The cluster's GPU inventory: the input of the rules marked "cluster-aware only". */
export interface GpuInventory {
  pools: GpuPool[];
  /** ResourceQuotas on GPU resources (`quota-exceeded`); absent = not known, nothing checked. */
  quotas?: readonly NamespaceQuota[];
  /**
   * The rolling update an edit starts (its quotas then come without the workload's own pods,
   * `quotasWithout`): `quota-exceeded` counts the surge pods that overlap during it.
   */
  rollout?: QuotaRollout;
  /**
   * Every node's `status.allocatable.pods` (kubelet's `--max-pods`, 110 by default), summed:
   * no cluster runs more pods at once, whatever they ask for (`replicas-exceed-cluster` for pods
   * without GPUs too). Absent = not known, nothing checked.
   */
  podSlots?: { nodes: number; pods: number };
}

export function knownModels(inventory: GpuInventory): string[] {
  return [...new Set(inventory.pools.map((pool) => pool.model))].sort();
}
