import type { ComputePolicy } from '@mgpu/shared';
import type { Topology, TopologyPool } from './topology.js';

/** GPU models as VKE labels them, with the MiB per card their drivers report. */
const MODELS = [
  { model: 'NVIDIA-L20', memoryMiBPerCard: 46068 },
  { model: 'Tesla-V100', memoryMiBPerCard: 32768 },
  { model: 'NVIDIA-A100-SXM4-80GB', memoryMiBPerCard: 81920 },
  { model: 'NVIDIA-A10', memoryMiBPerCard: 23028 },
] as const;

const POLICIES: readonly ComputePolicy[] = [
  'native-burst-share',
  'fixed-share',
  'guaranteed-burst-share',
];

export interface GenerateOptions {
  /** Total nodes (default 1,000). */
  nodes?: number;
  cardsPerNode?: number;
  /**
   * `uniform`: one native-burst-share NVIDIA-L20 pool (what the throughput benchmark fills);
   * `mixed`: pools of every model × policy, as a large real cluster would have.
   */
  mix?: 'uniform' | 'mixed';
}

/** A large cluster for benchmarks and load tests (default 1,000 nodes × 8 cards). */
export function generateTopology(options: GenerateOptions = {}): Topology {
  const total = options.nodes ?? 1000;
  const cardsPerNode = options.cardsPerNode ?? 8;
  if (options.mix !== 'mixed') {
    return {
      name: `generated-${total}x${cardsPerNode}`,
      pools: [
        {
          name: 'l20-nbs',
          resourceType: 'mgpu',
          model: 'NVIDIA-L20',
          policy: 'native-burst-share',
          cardsPerNode,
          memoryMiBPerCard: 46068,
          nodes: total,
          maxPods: 256,
        },
      ],
      pods: [],
    };
  }
  const templates: TopologyPool[] = MODELS.flatMap(({ model, memoryMiBPerCard }) =>
    POLICIES.map((policy) => ({
      name: `${model.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${policy}`,
      resourceType: 'mgpu' as const,
      model,
      policy,
      cardsPerNode,
      memoryMiBPerCard,
      nodes: 0,
      maxPods: 256,
    })),
  );
  templates.push({
    name: 'a100-nvidia',
    resourceType: 'nvidia',
    model: 'NVIDIA-A100-SXM4-80GB',
    cardsPerNode,
    nodes: 0,
  });
  templates.forEach((pool, index) => {
    pool.nodes = Math.floor(total / templates.length) + (index < total % templates.length ? 1 : 0);
  });
  return {
    name: `generated-mixed-${total}x${cardsPerNode}`,
    pools: templates.filter((pool) => pool.nodes > 0),
    pods: [],
  };
}
