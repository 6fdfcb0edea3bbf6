import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isConflict, kubeConfigForServer, type ServerAccess } from '@mgpu/kube-client';
import type { GpuUsageSnapshot } from '@mgpu/shared';
import { parse, stringify } from 'yaml';
import { type ApiServer, startApiServer } from './apiserver/api-server.js';
import { ContainerLogStore } from './controllers/container-logs.js';
import type { RunningController } from './controllers/controller.js';
import { startDeploymentController } from './controllers/deployment-controller.js';
import { startJobController } from './controllers/job-controller.js';
import { type NodeAgents, startNodeAgents } from './controllers/node-agent.js';
import { startReplicaSetController } from './controllers/replicaset-controller.js';
import { type SchedulerOptions, startScheduler } from './controllers/scheduler.js';
import { startStatefulSetController } from './controllers/statefulset-controller.js';
import { type GpuExporterServer, serveGpuExporter } from './gpu-usage/exporter-server.js';
import { exporterText } from './gpu-usage/exporter-text.js';
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
  /** The API's bearer token, e.g. an earlier start's so its clients keep working; random if absent. */
  token?: string;
  /** Also serve the GPU exporter's `GET /metrics` on this loopback port (0: a free one). */
  gpuMetricsPort?: number;
}

/**
 * The embedded cluster's GPU exporter, read in-process: the node agents' model of what each
 * container uses (simulated, not measured), fresh on every call.
 */
export interface EmbeddedGpuMetrics {
  /** dcgm-exporter text, exactly what `GET /metrics` on the exporter port answers. */
  text(nowMs?: number): string;
  /** The same figures as objects. */
  samples(nowMs?: number): GpuUsageSnapshot;
  /** Where `GET /metrics` answers, when `gpuMetricsPort` was given. */
  url?: string;
}

export interface EmbeddedCluster extends EmbeddedApi {
  port: number;
  /** Plain HTTP with the token (`token`, which the written kubeconfig carries too). */
  kubeConfig: KubeConfig;
  topology: Topology;
  /** What the containers wrote (the node agents write, `pods/<name>/log` reads). */
  containerLogs: ContainerLogStore;
  /** What the containers use of their GPUs, as the simulator models it. */
  gpuMetrics: EmbeddedGpuMetrics;
  /** Writes a kubeconfig for kubectl and other clients (TLS with the CA, the token; 0600). */
  writeKubeconfig(file: string): Promise<void>;
  /** Resolves once the controllers have nothing queued. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The sim's names in every kubeconfig it makes (kubectl shows the context). */
const SIM_KUBECONFIG_NAMES = { context: 'mgpu-sim', user: 'mgpu-sim-admin', namespace: 'default' };

/** Where the embedded API answers over plain HTTP, and the bearer token it wants. */
export type EmbeddedApi = Pick<ServerAccess, 'url' | 'token'>;

/** The header that authenticates a request to the embedded API (raw HTTP clients, tests). */
export function authorizationFor(api: Pick<EmbeddedApi, 'token'>): { authorization: string } {
  return { authorization: `Bearer ${api.token}` };
}

/**
 * A kubeconfig for in-process clients (the console, the controllers) of the embedded API:
 * plain HTTP, which costs no handshakes, with the server's bearer token.
 */
export function kubeConfigFor(api: EmbeddedApi): KubeConfig {
  return kubeConfigForServer(api, SIM_KUBECONFIG_NAMES);
}

/**
 * The kubeconfig for kubectl and other outside clients: TLS, verified against the CA the server
 * made at start, since client-go sends a kubeconfig's token only over TLS.
 */
export function kubeConfigForClients(
  server: Pick<ApiServer, 'httpsUrl' | 'token' | 'certificate'>,
): KubeConfig {
  return kubeConfigForServer(
    {
      url: server.httpsUrl,
      token: server.token,
      certificateAuthority: server.certificate.certificateAuthority,
    },
    SIM_KUBECONFIG_NAMES,
  );
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
  const containerLogs = new ContainerLogStore();
  const server: ApiServer = await startApiServer({
    podLogs: containerLogs,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.stateFile !== undefined ? { stateFile: options.stateFile } : {}),
    ...(options.eventTtlMs !== undefined ? { eventTtlMs: options.eventTtlMs } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
  const kubeConfig = kubeConfigFor(server);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const running: RunningController[] = [];
  let exporter: GpuExporterServer | undefined;
  const stop = async () => {
    await exporter?.close();
    await Promise.allSettled([...running].reverse().map((controller) => controller.stop()));
    await server.close();
  };
  let agents: NodeAgents;
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
    agents = await startNodeAgents(kubeConfig, { topology, log, logs: containerLogs });
    running.push(agents);
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
    running.push(await startStatefulSetController(kubeConfig, { log }));
    running.push(await startJobController(kubeConfig, { log }));
    if (options.gpuMetricsPort !== undefined)
      exporter = await serveGpuExporter(
        () => exporterText(agents.gpuUsage()),
        options.gpuMetricsPort,
      );
    if (exporter) log(`GPU exporter (simulated use) at ${exporter.url}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    token: server.token,
    kubeConfig,
    topology,
    containerLogs,
    gpuMetrics: {
      text: (nowMs) => exporterText(agents.gpuUsage(nowMs)),
      samples: (nowMs) => agents.gpuUsage(nowMs),
      ...(exporter ? { url: exporter.url } : {}),
    },
    async writeKubeconfig(file) {
      const text = stringify(parse(kubeConfigForClients(server).exportConfig()));
      // mode applies only to a new file; an existing one is narrowed too, as it holds the token.
      await writeFile(file, text, { mode: 0o600 });
      await chmod(file, 0o600);
    },
    async idle() {
      for (const controller of running) await controller.idle();
    },
    stop,
  };
}
