import { isConflict, isNotFound, type KubeClients, mergePatch } from '@mgpu/kube-client';
import type { TopologyNode } from '../topology/topology.js';

/** A node as its kubelet registers it: name, position (its address) and the Node object. */
export interface RegisteredNode {
  name: string;
  index: number;
  object: TopologyNode['object'];
}

/** A node's InternalIP, stable by its position in the topology. */
export const nodeIP = (index: number) => `192.168.${Math.floor(index / 250)}.${(index % 250) + 4}`;

/** Kubelet registration: create the Node if missing, then publish its status as Ready. */
export async function registerNode(clients: KubeClients, agent: RegisteredNode): Promise<void> {
  try {
    await clients.core.readNode({ name: agent.name });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await clients.core.createNode({
        body: { apiVersion: 'v1', kind: 'Node', metadata: agent.object.metadata, spec: {} },
      });
    } catch (createError) {
      if (!isConflict(createError)) throw createError;
    }
  }
  const now = new Date().toISOString();
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  await clients.core.patchNodeStatus(
    {
      name: agent.name,
      body: {
        status: {
          capacity: agent.object.status.capacity,
          allocatable: agent.object.status.allocatable,
          nodeInfo: agent.object.status.nodeInfo,
          addresses: [
            { type: 'InternalIP', address: nodeIP(agent.index) },
            { type: 'Hostname', address: agent.name },
          ],
          conditions: [
            condition(
              'MemoryPressure',
              'False',
              'KubeletHasSufficientMemory',
              'kubelet has sufficient memory available',
            ),
            condition(
              'DiskPressure',
              'False',
              'KubeletHasNoDiskPressure',
              'kubelet has no disk pressure',
            ),
            condition(
              'PIDPressure',
              'False',
              'KubeletHasSufficientPID',
              'kubelet has sufficient PID available',
            ),
            condition(
              'Ready',
              'True',
              'KubeletReady',
              'kubelet is posting ready status (simulated)',
            ),
          ],
        },
      },
    },
    mergePatch(),
  );
}
