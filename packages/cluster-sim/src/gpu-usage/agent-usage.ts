import { splitKey } from '@mgpu/kube-client';
import type { CardType, MgpuInstance } from '@mgpu/shared';
import type { RunningGpuNode, RunningInstance } from './snapshot.js';

/** What the usage model needs of a pod a node agent runs. */
export interface AgentPodUsage {
  /** `namespace/name`. */
  key: string;
  /** Its replicas share a usage profile. */
  workload: string;
  annotatedPercent: number | undefined;
  instances: readonly MgpuInstance[];
  /** Whole `nvidia.com/gpu` cards. */
  whole: readonly { card: number; container: string }[];
}

/** What the usage model needs of a node agent. */
export interface AgentNodeUsage {
  name: string;
  /** undefined: no GPU node. */
  resourceType: CardType | undefined;
  model: string;
  memoryMiBPerCard: number;
  cardUuids: readonly string[];
  pods: ReadonlyMap<string, AgentPodUsage>;
}

const annotated = (pod: Pick<AgentPodUsage, 'annotatedPercent'>) =>
  pod.annotatedPercent !== undefined ? { annotatedPercent: pod.annotatedPercent } : {};

/** An mGPU instance as the usage model sees it: its pod's workload and annotation, its share. */
export const modelledOf = (
  pod: Pick<AgentPodUsage, 'workload' | 'annotatedPercent'>,
  instance: MgpuInstance,
): RunningInstance => ({
  namespace: instance.namespace,
  workload: pod.workload,
  pod: instance.pod,
  container: instance.container,
  card: instance.device_id,
  memoryLimitMiB: instance.vmem_limit,
  allocatedComputePercent: instance.compute_weight_online,
  ...annotated(pod),
});

/** The GPU nodes the agents run, with every container on every card (whole cards at 100 %). */
export function runningGpuNodes(agents: Iterable<AgentNodeUsage>): RunningGpuNode[] {
  const nodes: RunningGpuNode[] = [];
  for (const agent of agents) {
    if (agent.resourceType === undefined) continue;
    const instances: RunningInstance[] = [];
    for (const pod of agent.pods.values()) {
      for (const instance of pod.instances) instances.push(modelledOf(pod, instance));
      const { namespace, name } = splitKey(pod.key);
      for (const { card, container } of pod.whole)
        instances.push({
          namespace,
          workload: pod.workload,
          pod: name,
          container,
          card,
          memoryLimitMiB: agent.memoryMiBPerCard,
          allocatedComputePercent: 100,
          ...annotated(pod),
        });
    }
    nodes.push({
      name: agent.name,
      model: agent.model,
      memoryMiBPerCard: agent.memoryMiBPerCard,
      cardUuids: agent.cardUuids,
      instances,
    });
  }
  return nodes;
}
