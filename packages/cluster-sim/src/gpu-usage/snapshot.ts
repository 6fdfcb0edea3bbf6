import type { CardUsageSample, GpuUsageSnapshot, InstanceUsageSample } from '@mgpu/shared';
import {
  cardUtilizationPercent,
  instanceMemoryUsedMiB,
  instanceUtilizationPercent,
  type ModelledInstance,
  processIdOf,
} from './usage-model.js';

/** A container on a card as its node agent runs it: the model's inputs and its compute share. */
export interface RunningInstance extends ModelledInstance {
  /** Percent of the card's compute given to it; 100 for a whole `nvidia.com/gpu` card. */
  allocatedComputePercent: number;
}

/** A GPU node as its agent knows it: every card, used or not, and what runs on them. */
export interface RunningGpuNode {
  name: string;
  model: string;
  /** 0 where the node does not say (whole-card pools): its cards' memory is then null. */
  memoryMiBPerCard: number;
  cardUuids: readonly string[];
  instances: readonly RunningInstance[];
}

/**
 * What a node agent writes for an instance's processes (spec §6 `tasks`, `vmem_info`): one
 * process holding the memory the model says, the rest of the limit free.
 */
export function instanceProcesses(
  instance: ModelledInstance,
  containerId: string,
): { tasks: number[]; vmem_info: { free_mib: number; used: { pid: number; used_mib: number }[] } } {
  const pid = processIdOf(containerId);
  const used = instanceMemoryUsedMiB(instance);
  return {
    tasks: [pid],
    vmem_info: { free_mib: instance.memoryLimitMiB - used, used: [{ pid, used_mib: used }] },
  };
}

/**
 * The figures of every card of every node at `nowMs`: unused cards at 0 % (known idle, not
 * unknown), each instance from the model, each card the sum of its instances.
 */
export function gpuUsageSnapshot(nodes: Iterable<RunningGpuNode>, nowMs: number): GpuUsageSnapshot {
  const cards: CardUsageSample[] = [];
  const instances: InstanceUsageSample[] = [];
  for (const node of nodes) {
    const onCard = node.cardUuids.map((): InstanceUsageSample[] => []);
    // A node that does not say its cards' memory (whole-card pools): memory unknown, not 0.
    const memoryMiB = node.memoryMiBPerCard > 0 ? node.memoryMiBPerCard : null;
    for (const instance of node.instances) {
      const known = memoryMiB !== null && instance.memoryLimitMiB > 0;
      const sample: InstanceUsageSample = {
        node: node.name,
        card: instance.card,
        namespace: instance.namespace,
        pod: instance.pod,
        container: instance.container,
        allocatedComputePercent: instance.allocatedComputePercent,
        memoryLimitMiB: known ? instance.memoryLimitMiB : null,
        utilizationPercent: instanceUtilizationPercent(instance, nowMs),
        memoryUsedMiB: known ? instanceMemoryUsedMiB(instance) : null,
      };
      instances.push(sample);
      onCard[instance.card]?.push(sample);
    }
    node.cardUuids.forEach((uuid, card) => {
      const running = onCard[card] ?? [];
      const memoryUsedMiB =
        memoryMiB === null
          ? null
          : Math.min(
              memoryMiB,
              running.reduce((sum, instance) => sum + (instance.memoryUsedMiB ?? 0), 0),
            );
      cards.push({
        node: node.name,
        card,
        uuid,
        model: node.model,
        memoryMiB,
        utilizationPercent: cardUtilizationPercent(running),
        memoryUsedMiB,
        memoryFreeMiB:
          memoryMiB === null || memoryUsedMiB === null ? null : memoryMiB - memoryUsedMiB,
      });
    });
  }
  return { at: nowMs, simulated: true, cards, instances };
}
