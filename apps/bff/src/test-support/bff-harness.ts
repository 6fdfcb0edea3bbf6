/**
 * The BFF under test: on the embedded mGPU cluster started in this process, or — when
 * MGPU_TEST_KUBECONFIG names a kubeconfig (the real control-plane tier) — on that cluster. The
 * BFF always talks HTTP to a Kubernetes API; nothing of ours is mocked.
 */
import { randomBytes } from 'node:crypto';
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
} from '@kubernetes/client-node';
import {
  type AppCaller,
  type ClusterClient,
  type ClusterConnection,
  createCaller,
  embeddedConnection,
  RuleErrors,
  type WorkloadObjects,
} from '@mgpu/api';
import { toKubeError } from '@mgpu/kube-client';
import {
  type AllocationEvent,
  MGPU_NODE_RESOURCE,
  MgpuNodeSchema,
  readMgpuNodeStatus,
  type WorkloadRequest,
  type WorkloadRequestInput,
} from '@mgpu/shared';
import { type TestTier, testTier } from '@mgpu/shared/test-tier';
import { TRPCError } from '@trpc/server';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import { type BffOptions, type RunningBff, startBff } from '../server.js';
import { type EmbeddedCluster, loadTopology, startEmbeddedCluster } from './embedded-cluster.js';

export interface BffHarness {
  bff: RunningBff;
  url: string;
  caller: AppCaller;
  /** The embedded cluster the BFF runs on; undefined on the real tier. */
  embedded: EmbeddedCluster | undefined;
  /** The cluster connection the BFF under test uses, for a second BFF on the same cluster. */
  connection: ClusterConnection;
  /** A namespace of the cluster's default topology with room for the seed example. */
  namespace: string;
  /**
   * For tests that change the cluster directly (nodes, say), as an administrator would: on the
   * real tier the BFF itself runs as the least-privileged console user, so this is the
   * administrator's context (MGPU_TEST_ADMIN_CONTEXT) of the same kubeconfig.
   */
  adminKubeConfig: KubeConfig;
  close(): Promise<void>;
}

export async function startHarness(
  options: Omit<Partial<BffOptions>, 'connection' | 'port'> = {},
): Promise<BffHarness> {
  const tier = testTier();
  let embedded: EmbeddedCluster | undefined;
  let connection: ClusterConnection;
  if (tier.kind === 'real') {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(tier.kubeconfig);
    connection = {
      kubeConfig,
      source: {
        kind: 'kubeconfig',
        file: tier.kubeconfig,
        context: kubeConfig.getCurrentContext(),
        server: kubeConfig.getCurrentCluster()?.server ?? '',
      },
      close: async () => {},
    };
  } else {
    embedded = await startEmbeddedCluster({ log: () => {} });
    const cluster = embedded;
    // Its GPU exporter read in-process, as `npm start` on the embedded cluster does (issue 28).
    connection = embeddedConnection(
      cluster,
      () => cluster.stop(),
      () => cluster.gpuMetrics.samples(),
    );
  }
  const adminKubeConfig = adminKubeConfigOf(tier, connection.kubeConfig);
  if (tier.kind === 'real' && !earlierFilesCleared) {
    await clearEarlierFiles(adminKubeConfig);
    earlierFilesCleared = true;
  }
  const bff = await startBff({ connection, port: 0, logger: false, ...options });
  return {
    bff,
    url: bff.url,
    caller: createCaller(bff.context),
    embedded,
    connection,
    namespace: 'default',
    adminKubeConfig,
    close: async () => {
      await bff.close();
      await connection.close();
    },
  };
}

/**
 * At most this long for what earlier test files left on the real tier's cluster to go: within
 * the 60 s hook timeout (vitest.config.ts), so the error that names them is the one reported.
 */
const LEFTOVERS_TIMEOUT_MS = 45_000;

/**
 * Once per test file (vitest gives each file its own module state): a harness a test starts
 * later beside the file's first finds the file's own workloads, which it must leave alone.
 */
let earlierFilesCleared = false;

/**
 * The embedded tier gives each test file a cluster of its own; on the real tier they all share
 * the one cluster:real started, one file after another. So a file starts once what earlier
 * files left is gone: every workload (a test that failed before its delete leaves one, and it
 * holds cards another file counts as free) and every pod and mGPU instance that is not the
 * default topology's. Its cluster then is the one cluster:real started, as on the embedded tier.
 * MGPU_TEST_KUBECONFIG names the tests' own cluster, never one that runs anything else.
 */
async function clearEarlierFiles(admin: KubeConfig): Promise<void> {
  const apps = admin.makeApiClient(AppsV1Api);
  const batch = admin.makeApiClient(BatchV1Api);
  const core = admin.makeApiClient(CoreV1Api);
  const custom = admin.makeApiClient(CustomObjectsApi);
  const topologyPods = new Set(loadTopology().pods.map((pod) => `${pod.namespace}/${pod.name}`));
  const isTopologyPod = (namespace = '', name = '') => topologyPods.has(`${namespace}/${name}`);
  const deleted = { propagationPolicy: 'Background', gracePeriodSeconds: 0 };
  const ignoreGone = (error: unknown) => {
    if (toKubeError(error).code !== 404) throw error;
  };
  const [deployments, statefulSets, jobs, pods] = await Promise.all([
    apps.listDeploymentForAllNamespaces(),
    apps.listStatefulSetForAllNamespaces(),
    batch.listJobForAllNamespaces(),
    core.listPodForAllNamespaces(),
  ]);
  const target = (metadata: { namespace?: string; name?: string } | undefined) => ({
    namespace: metadata?.namespace ?? '',
    name: metadata?.name ?? '',
    ...deleted,
  });
  await Promise.all([
    ...deployments.items.map((item) =>
      apps.deleteNamespacedDeployment(target(item.metadata)).catch(ignoreGone),
    ),
    ...statefulSets.items.map((item) =>
      apps.deleteNamespacedStatefulSet(target(item.metadata)).catch(ignoreGone),
    ),
    ...jobs.items.map((item) => batch.deleteNamespacedJob(target(item.metadata)).catch(ignoreGone)),
    ...pods.items
      .filter((pod) => !isTopologyPod(pod.metadata?.namespace, pod.metadata?.name))
      .map((pod) => core.deleteNamespacedPod(target(pod.metadata)).catch(ignoreGone)),
  ]);
  const left = async (): Promise<string[]> => {
    const [pods, reports] = await Promise.all([
      core.listPodForAllNamespaces(),
      custom.listClusterCustomObject({
        group: MGPU_NODE_RESOURCE.group,
        version: MGPU_NODE_RESOURCE.version,
        plural: MGPU_NODE_RESOURCE.plural,
      }) as Promise<{ items: unknown[] }>,
    ]);
    const instances = reports.items.flatMap((item) => {
      const status = readMgpuNodeStatus(MgpuNodeSchema.parse(item));
      return (status?.cards ?? []).flatMap((card) => card.instances);
    });
    return [
      ...pods.items.map((pod) => [pod.metadata?.namespace, pod.metadata?.name] as const),
      ...instances.map((instance) => [instance.namespace, instance.pod] as const),
    ]
      .filter(([namespace, name]) => !isTopologyPod(namespace, name))
      .map(([namespace, name]) => `${namespace}/${name}`);
  };
  const deadline = Date.now() + LEFTOVERS_TIMEOUT_MS;
  let remaining = await left();
  while (remaining.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    remaining = await left();
  }
  if (remaining.length > 0)
    throw new Error(
      `pods of earlier test files still on the real tier's cluster after ${LEFTOVERS_TIMEOUT_MS / 1000} s: ${[...new Set(remaining)].join(', ')}`,
    );
}

/**
 * A test file's BFF: started before its tests (`startHarness`) and closed after them, once
 * `cleanups` (what the tests pushed, run last first) are done. The harness returned reads the
 * started one, so it is used inside tests and hooks, never at the file's top level.
 */
export function startBffTest(
  options: Parameters<typeof startHarness>[0] = {},
  cleanups: (() => Promise<unknown>)[] = [],
): BffHarness {
  let started: BffHarness | undefined;
  beforeAll(async () => {
    started = await startHarness(options);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    await started?.close();
  });
  const current = (): BffHarness => {
    if (started === undefined) throw new Error('the BFF starts in beforeAll: use it in a test');
    return started;
  };
  return {
    get bff() {
      return current().bff;
    },
    get url() {
      return current().url;
    },
    get caller() {
      return current().caller;
    },
    get embedded() {
      return current().embedded;
    },
    get connection() {
      return current().connection;
    },
    get namespace() {
      return current().namespace;
    },
    get adminKubeConfig() {
      return current().adminKubeConfig;
    },
    close: () => current().close(),
  };
}

function adminKubeConfigOf(tier: TestTier, consoleUser: KubeConfig): KubeConfig {
  if (tier.kind !== 'real' || tier.adminContext === undefined) return consoleUser;
  const admin = new KubeConfig();
  admin.loadFromFile(tier.kubeconfig);
  admin.setCurrentContext(tier.adminContext);
  return admin;
}

/**
 * A caller whose workload calls go through `overrides` (built on the real ones): how a test puts
 * another client's write between two steps of a procedure — the API server still answers.
 */
export function callerWithWorkloads(
  harness: BffHarness,
  overrides: (real: WorkloadObjects) => Partial<WorkloadObjects>,
): BffHarness['caller'] {
  const context = harness.bff.context;
  const real = context.cluster.workloads;
  const workloads: WorkloadObjects = Object.assign(Object.create(real), overrides(real));
  const cluster: ClusterClient = Object.create(context.cluster);
  Object.defineProperty(cluster, 'workloads', { value: workloads });
  return createCaller({ ...context, cluster });
}

/**
 * A caller whose workload reads run `between` once, after they have answered: what another
 * client does after a mutation (delete, scale) checked the object and before it is sent.
 */
export function callerWithChangeAfterCheck(
  harness: BffHarness,
  between: () => Promise<void>,
): BffHarness['caller'] {
  let pending: (() => Promise<void>) | undefined = between;
  const afterRead = async <T>(read: Promise<T>): Promise<T> => {
    const result = await read;
    const change = pending;
    pending = undefined;
    await change?.();
    return result;
  };
  return callerWithWorkloads(harness, (real) => ({
    read: (kind, ns, name) => afterRead(real.read(kind, ns, name)),
    findEvery: (ns, name) => afterRead(real.findEvery(ns, name)),
  }));
}

/**
 * Deletes the workload once the test is over, passed or failed: on the real tier's shared
 * cluster a failed test's workload would hold cards the next test counts as free.
 */
export function deleteAfterTest(harness: BffHarness, name: string, namespace = 'default'): void {
  onTestFinished(async () => {
    await harness.caller.workload.delete({ namespace, name }).catch((error: unknown) => {
      if (!(error instanceof TRPCError && error.code === 'NOT_FOUND')) throw error;
    });
  });
}

/** A fresh DNS-1123 name, so tests never trip over each other's workloads. */
export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** The seed's example and GPU ask, as every package's tests create it. */
export { SEED_GPU, seedRequest } from '@mgpu/shared';

type GpuInput = NonNullable<WorkloadRequestInput['containers'][number]['gpu']>;

/**
 * Valid on its own, but more native-burst-share compute on 8 cards than any node of the default
 * topology has free: a pod asking this stays pending. One replica only — the one 8-card node
 * could hold one such pod when empty, so more would break replicas-exceed-cluster.
 */
export const PENDING_GPU: GpuInput = {
  type: 'mgpu',
  multiCard: true,
  compute: '7.2',
  memoryGiB: '400',
  cards: 8,
};

/** The request with its first container's GPU compute changed: the edit form's usual edit. */
export const withCompute = (request: WorkloadRequest, compute: string): WorkloadRequest => ({
  ...request,
  containers: request.containers.map((container, index) =>
    index === 0 && container.gpu ? { ...container, gpu: { ...container.gpu, compute } } : container,
  ),
});

/**
 * Polls until `read` returns something truthy (the cluster converges asynchronously), every
 * 100 ms, `tries` times: a bound against a hang, never a measurement. `what` may be a function
 * so the failure can say what was last seen.
 */
export async function eventually<T>(
  read: () => Promise<T | undefined> | T | undefined,
  what: string | (() => string),
  tries = 400,
): Promise<T> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const value = await read();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
}

/** A caller's subscription yields tRPC's tracked envelope `[id, data]`: its data. */
export const trackedData = <T>(item: unknown): T =>
  (Array.isArray(item) ? item[1] : (item as { data: T }).data) as T;

/** Reads SSE messages from tRPC's subscription endpoint with the Node-side `eventsource` client. */
export function subscribe(url: string, lastEventId?: string) {
  const messages: { id: string; event: AllocationEvent }[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...init?.headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      }),
  });
  source.onmessage = (message) => {
    messages.push({ id: message.lastEventId, event: JSON.parse(message.data) as AllocationEvent });
  };
  return { source, messages };
}

/** The rule errors (and tRPC code) a call is refused with; fails the test if it is not refused. */
export async function ruleErrorsOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    const cause = (error as TRPCError).cause;
    expect(cause).toBeInstanceOf(RuleErrors);
    return { code: (error as TRPCError).code, errors: (cause as RuleErrors).errors };
  }
  throw new Error('expected the call to fail');
}
