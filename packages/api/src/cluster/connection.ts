import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeConfigForServer, type ServerAccess } from '@mgpu/kube-client';
import type { GpuUsageSnapshot } from '@mgpu/shared';

/** Where the console's cluster comes from; the first log line says which. */
export type ClusterSource =
  | { kind: 'kubeconfig'; file: string; context: string; server: string }
  | { kind: 'in-cluster'; server: string }
  | { kind: 'embedded'; server: string };

export interface ClusterConnection {
  kubeConfig: KubeConfig;
  source: ClusterSource;
  /** Stops what the connection started (the embedded cluster); a no-op for external clusters. */
  close(): Promise<void>;
  /**
   * The embedded cluster's GPU exporter figures, read in-process (issue 28): the console's
   * usage source when no `--prometheus-url` is given. Absent on a real cluster.
   */
  gpuUsage?: () => GpuUsageSnapshot;
}

/** What the embedded cluster is started with. */
export interface EmbeddedClusterOptions {
  topology?: string;
  stateFile?: string;
  /** Also serve its GPU exporter (`GET /metrics`, dcgm-exporter text) on this loopback port. */
  gpuMetricsPort?: number;
  /** Where its controllers log. */
  log?: (message: string) => void;
}

/** The embedded cluster's API (plain HTTP on loopback, its bearer token), and how to stop it. */
export interface StartedEmbeddedCluster extends Pick<ServerAccess, 'url' | 'token'> {
  stop(): Promise<void>;
  /** Its GPU exporter, read in-process (the simulator's model of what containers use). */
  gpuMetrics?: { samples(): GpuUsageSnapshot };
}

/**
 * Starts the embedded mGPU cluster (the simulator's `startEmbeddedCluster`). The process entry
 * passes it and imports the simulator only when it is called, so a console on a real cluster
 * never loads it.
 */
export type StartEmbeddedCluster = (
  options: EmbeddedClusterOptions,
) => Promise<StartedEmbeddedCluster>;

export interface ConnectOptions {
  /** A kubeconfig file; else `KUBECONFIG`, else `~/.kube/config` when it exists. */
  kubeconfig?: string;
  context?: string;
  /** Skip every configured cluster and start the embedded one. */
  embedded?: boolean;
  /** Options for the embedded cluster when it is started. */
  embeddedOptions?: Omit<EmbeddedClusterOptions, 'log'>;
  /** Starts the embedded cluster when no other is configured; without it, that is an error. */
  startEmbedded?: StartEmbeddedCluster;
  env?: NodeJS.ProcessEnv;
  /** Told which cluster is used before anything else is logged (the embedded one logs as it starts). */
  announce?: (source: ClusterSource | { kind: 'embedded'; server: 'starting' }) => void;
  /** Where the embedded cluster's controllers log. */
  log?: (message: string) => void;
}

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';
/**
 * Tests only: a folder standing in for the pod's root, under which the in-cluster files are
 * read (`<root>/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt}`), so the chart's
 * install test can run the console as its pod would without writing to this machine's /var.
 * Unset in a pod: the real paths.
 */
const IN_CLUSTER_ROOT_ENV = 'MGPU_TEST_IN_CLUSTER_ROOT';

/**
 * Connects to the cluster the operator configured: an explicit or default kubeconfig, the
 * in-cluster service account, or — when none is configured — the embedded mGPU cluster,
 * started in this process.
 */
export async function connectCluster(options: ConnectOptions = {}): Promise<ClusterConnection> {
  const env = options.env ?? process.env;
  if (!options.embedded) {
    const defaultFile = join(homedir(), '.kube', 'config');
    const file =
      options.kubeconfig ??
      env.KUBECONFIG?.split(':')[0] ??
      (existsSync(defaultFile) ? defaultFile : undefined);
    if (file !== undefined && file !== '') {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(file);
      if (options.context) kubeConfig.setCurrentContext(options.context);
      const server = kubeConfig.getCurrentCluster()?.server ?? 'unknown';
      const source: ClusterSource = {
        kind: 'kubeconfig',
        file,
        context: kubeConfig.getCurrentContext(),
        server,
      };
      options.announce?.(source);
      return { kubeConfig, source, close: async () => {} };
    }
    const inClusterRoot = env[IN_CLUSTER_ROOT_ENV] ?? '';
    if (env.KUBERNETES_SERVICE_HOST && existsSync(`${inClusterRoot}${IN_CLUSTER_TOKEN}`)) {
      const kubeConfig = new KubeConfig();
      // client-node reads the prefix as a path prefix of its own in-cluster paths.
      kubeConfig.loadFromCluster(inClusterRoot);
      const server = kubeConfig.getCurrentCluster()?.server ?? 'unknown';
      const source: ClusterSource = { kind: 'in-cluster', server };
      options.announce?.(source);
      return { kubeConfig, source, close: async () => {} };
    }
  }
  if (!options.startEmbedded)
    throw new Error(
      'no cluster configured (--kubeconfig, KUBECONFIG, ~/.kube/config or the in-cluster service account) and no embedded cluster to start',
    );
  options.announce?.({ kind: 'embedded', server: 'starting' });
  const cluster = await options.startEmbedded({
    ...(options.log ? { log: options.log } : {}),
    ...(options.embeddedOptions?.topology ? { topology: options.embeddedOptions.topology } : {}),
    ...(options.embeddedOptions?.stateFile ? { stateFile: options.embeddedOptions.stateFile } : {}),
    ...(options.embeddedOptions?.gpuMetricsPort !== undefined
      ? { gpuMetricsPort: options.embeddedOptions.gpuMetricsPort }
      : {}),
  });
  const gpuMetrics = cluster.gpuMetrics;
  return embeddedConnection(
    cluster,
    () => cluster.stop(),
    gpuMetrics ? () => gpuMetrics.samples() : undefined,
  );
}

/**
 * A connection to an embedded cluster's API (plain HTTP on loopback, with its bearer token);
 * `stop` runs when the console closes it.
 */
export function embeddedConnection(
  api: Pick<ServerAccess, 'url' | 'token'>,
  stop: () => Promise<void> = async () => {},
  gpuUsage?: () => GpuUsageSnapshot,
): ClusterConnection {
  return {
    kubeConfig: kubeConfigForServer(api),
    source: { kind: 'embedded', server: api.url },
    close: stop,
    ...(gpuUsage ? { gpuUsage } : {}),
  };
}

export function describeSource(source: ClusterSource): string {
  switch (source.kind) {
    case 'kubeconfig':
      return `cluster: kubeconfig ${source.file}, context ${source.context}, server ${source.server}`;
    case 'in-cluster':
      return `cluster: in-cluster service account, server ${source.server}`;
    case 'embedded':
      return source.server === 'starting'
        ? 'cluster: embedded mGPU cluster (no kubeconfig configured), starting'
        : `cluster: embedded mGPU cluster at ${source.server} (no kubeconfig configured)`;
  }
}
