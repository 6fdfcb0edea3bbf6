import type { CoreV1Api, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { makeClients } from '@mgpu/kube-client';
import type { NodeAgents } from '../../packages/cluster-sim/src/controllers/node-agent.js';
import {
  type ApiServer,
  generateTopology,
  kubeConfigFor,
  type RunningScheduler,
  startApiServer,
  startNodeAgents,
  startScheduler,
} from '../../packages/cluster-sim/src/index.js';

/** Creates at once: enough to keep the API server busy without queueing in the client. */
const CREATORS = 16;

/** A generated cluster in this process, with a namespace for the benchmark's pods. */
export interface BenchCluster {
  server: ApiServer;
  kubeConfig: KubeConfig;
  /** Connections kept alive, as the controllers keep theirs (client-node alone opens one per call). */
  core: CoreV1Api;
  scheduler: RunningScheduler;
  /** The node agents: also the GPU usage model (`gpuUsage`), which the exporter serves. */
  agents: NodeAgents;
  /** Creates pods `0 … count - 1`, CREATORS at a time; `created` hears each index once it is in. */
  createPods(
    count: number,
    body: (index: number) => V1Pod,
    created?: (index: number) => void,
  ): Promise<void>;
  /** Resolves once the scheduler has seen the last creates (a second for its watch) and placed them. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The large benchmarks' cluster: API server, node agents of a `nodes` × `cardsPerNode` cluster
 * with every model × policy pool, and the scheduler, all in this process, with a watch window
 * large enough that a BFF's informers never fall behind it under 100 changes a second.
 */
export async function startBenchCluster(options: {
  nodes: number;
  cardsPerNode: number;
  namespace: string;
  log: (message: string) => void;
}): Promise<BenchCluster> {
  const server = await startApiServer({ port: 0, watchWindow: 200_000 });
  const kubeConfig = kubeConfigFor(server);
  const { core } = makeClients(kubeConfig);
  const agents: NodeAgents = await startNodeAgents(kubeConfig, {
    topology: generateTopology({
      nodes: options.nodes,
      cardsPerNode: options.cardsPerNode,
      mix: 'mixed',
    }),
    log: options.log,
  });
  const scheduler = await startScheduler(kubeConfig, {
    log: options.log,
    retryUnschedulableMs: 0,
  });
  await core.createNamespace({ body: { metadata: { name: options.namespace } } });
  return {
    server,
    kubeConfig,
    core,
    scheduler,
    agents,
    async createPods(count, body, created) {
      let next = 0;
      await Promise.all(
        Array.from({ length: CREATORS }, async () => {
          for (let index = next++; index < count; index = next++) {
            await core.createNamespacedPod({ namespace: options.namespace, body: body(index) });
            created?.(index);
          }
        }),
      );
    },
    async settle() {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await scheduler.idle();
    },
    async stop() {
      await scheduler.stop();
      await agents.stop();
      await server.close();
    },
  };
}
