import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { type ApiServer, startApiServer } from './apiserver/api-server.js';
import type { RunningController } from './controllers/controller.js';
import { startDeploymentController } from './controllers/deployment-controller.js';
import { isConflict } from './controllers/kube.js';
import { startNodeAgents } from './controllers/node-agent.js';
import { startReplicaSetController } from './controllers/replicaset-controller.js';
import { type SchedulerOptions, startScheduler } from './controllers/scheduler.js';
import {
  loadTopology,
  type Topology,
  topologyNamespaces,
  topologyNodes,
  topologyPodObject,
} from './topology/topology.js';

export interface EmbeddedClusterOptions {
  /** 0 or absent: a free loopback port. */
  port?: number;
  /** A topology, or the path of a topology file; the default mixed VKE cluster otherwise. */
  topology?: Topology | string;
  /** Keeps what operators created across restarts. */
  stateFile?: string;
  scheduler?: SchedulerOptions;
  /** How long an Event is kept after its last write; kube-apiserver's default (1 h) if absent. */
  eventTtlMs?: number;
  /** Where controller errors go; standard error by default. */
  log?: (message: string) => void;
}

export interface EmbeddedCluster {
  url: string;
  port: number;
  kubeConfig: KubeConfig;
  topology: Topology;
  /** Writes a kubeconfig for kubectl and other clients. */
  writeKubeconfig(file: string): Promise<void>;
  /** Resolves once the controllers have nothing queued. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function kubeConfigFor(url: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'mgpu-sim', server: url, skipTLSVerify: true }],
    users: [{ name: 'mgpu-sim-admin' }],
    contexts: [
      { name: 'mgpu-sim', cluster: 'mgpu-sim', user: 'mgpu-sim-admin', namespace: 'default' },
    ],
    currentContext: 'mgpu-sim',
  });
  return kubeConfig;
}

/**
 * The embedded cluster: the API server on loopback, the topology's nodes registered by their
 * agents, its pods created, then the scheduler and the deployment controller — all through
 * `@kubernetes/client-node`, as they would run against a real kube-apiserver.
 */
export async function startEmbeddedCluster(
  options: EmbeddedClusterOptions = {},
): Promise<EmbeddedCluster> {
  const topology =
    typeof options.topology === 'string' || options.topology === undefined
      ? loadTopology(options.topology)
      : options.topology;
  // A restart from a state file keeps what operators did, including pods they deleted.
  const restarted = options.stateFile !== undefined && existsSync(options.stateFile);
  const log =
    options.log ?? ((message: string) => process.stderr.write(`cluster-sim: ${message}\n`));
  const server: ApiServer = await startApiServer({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.stateFile !== undefined ? { stateFile: options.stateFile } : {}),
    ...(options.eventTtlMs !== undefined ? { eventTtlMs: options.eventTtlMs } : {}),
  });
  const kubeConfig = kubeConfigFor(server.url);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const running: RunningController[] = [];
  const stop = async () => {
    await Promise.allSettled([...running].reverse().map((controller) => controller.stop()));
    await server.close();
  };
  try {
    for (const namespace of topologyNamespaces(topology)) {
      try {
        await core.createNamespace({
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
        });
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    // Agents register the nodes; the pods that already run come next, so the scheduler's
    // first decision sees their cards taken.
    running.push(await startNodeAgents(kubeConfig, { topology, log }));
    const nodes = new Map(topologyNodes(topology).map((node) => [node.name, node]));
    for (const pod of restarted ? [] : topology.pods) {
      const body = topologyPodObject(pod, pod.node ? nodes.get(pod.node) : undefined);
      try {
        await core.createNamespacedPod({ namespace: pod.namespace, body });
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    running.push(await startScheduler(kubeConfig, { log, ...options.scheduler }));
    running.push(await startReplicaSetController(kubeConfig, { log }));
    running.push(await startDeploymentController(kubeConfig, { log }));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    kubeConfig,
    topology,
    async writeKubeconfig(file) {
      await writeFile(file, stringify(parse(kubeConfig.exportConfig())), { mode: 0o600 });
    },
    async idle() {
      for (const controller of running) await controller.idle();
    },
    stop,
  };
}
