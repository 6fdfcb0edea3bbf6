import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type CardType,
  COMPUTE_POLICIES,
  type ComputePolicy,
  type ContainerRequest,
  checkRequest,
  type DeploymentManifest,
  gpuIndexAnnotation,
  VKE,
  type WorkloadRequest,
} from '@mgpu/shared';
import { parse } from 'yaml';

/**
 * A cluster to simulate: node pools (one GPU model, resource type and compute policy each, as
 * VKE pools are) and pods that already run, pinned to cards so fragmentation is visible.
 */
export interface TopologyPool {
  /** Node names are `<name>-<i>`. */
  name: string;
  /** `none`: a node pool without GPUs. */
  resourceType: CardType | 'none';
  /** Value of `machine.cluster.vke.volcengine.com/gpu-name`. */
  model?: string;
  /** The pool's compute policy label; omitted = no label, which means fixed-share (spec §5). */
  policy?: ComputePolicy;
  cardsPerNode?: number;
  /** MiB per card as the driver reports it (an L20 reports 46068). */
  memoryMiBPerCard?: number;
  nodes: number;
  cpu?: string;
  memory?: string;
  maxPods?: number;
  instanceType?: string;
}

/** A pod that runs before anyone opens the console. */
export interface TopologyPod {
  name: string;
  namespace: string;
  /** Pinned node; without it the scheduler places the pod. */
  node?: string;
  computePolicy?: string;
  containers: ContainerRequest[];
  /** Pinned card indexes per container (needs `node`). */
  cards?: Record<string, number[]>;
  labels?: Record<string, string>;
}

export interface Topology {
  name: string;
  pools: TopologyPool[];
  pods: TopologyPod[];
}

/** A Node object as the API takes it, plus the status its agent publishes. */
export interface TopologyNode {
  name: string;
  pool: TopologyPool;
  object: {
    apiVersion: 'v1';
    kind: 'Node';
    metadata: { name: string; labels: Record<string, string> };
    spec: Record<string, never>;
    status: {
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      nodeInfo: Record<string, string>;
    };
  };
}

export interface TopologyPodObject {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  spec: DeploymentManifest['spec']['template']['spec'] & { nodeName?: string };
}

/** Label of our own group that names a node's pool (VKE's own pool label is not public). */
export const POOL_LABEL = 'mgpu.console.io/node-pool';
export const KUBELET_VERSION = 'v1.32.3-vke.5';

export const DEFAULT_TOPOLOGY_FILE = fileURLToPath(
  new URL('../../topologies/default.yaml', import.meta.url),
);

class TopologyError extends Error {
  constructor(where: string, message: string) {
    super(`topology ${where}: ${message}`);
    this.name = 'TopologyError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function readPool(value: unknown, index: number): TopologyPool {
  const where = `pools[${index}]`;
  if (!isRecord(value)) throw new TopologyError(where, 'is not a mapping');
  const { name, resourceType, model, policy, cardsPerNode, memoryMiBPerCard, nodes } = value;
  if (typeof name !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    throw new TopologyError(where, 'name must be a DNS-1123 label');
  }
  if (resourceType !== 'mgpu' && resourceType !== 'nvidia' && resourceType !== 'none') {
    throw new TopologyError(where, 'resourceType must be mgpu, nvidia or none');
  }
  if (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 0) {
    throw new TopologyError(where, 'nodes must be a whole number');
  }
  if (policy !== undefined && !(COMPUTE_POLICIES as readonly unknown[]).includes(policy)) {
    throw new TopologyError(where, `policy must be one of ${COMPUTE_POLICIES.join(', ')}`);
  }
  if (resourceType !== 'none') {
    if (typeof model !== 'string' || model === '')
      throw new TopologyError(where, 'model is required');
    if (typeof cardsPerNode !== 'number' || !Number.isInteger(cardsPerNode) || cardsPerNode < 1) {
      throw new TopologyError(where, 'cardsPerNode must be a whole number ≥ 1');
    }
  }
  if (
    resourceType === 'mgpu' &&
    (typeof memoryMiBPerCard !== 'number' || memoryMiBPerCard < 1024)
  ) {
    throw new TopologyError(where, 'memoryMiBPerCard must be at least 1024');
  }
  const text = (key: string) =>
    typeof value[key] === 'string' ? (value[key] as string) : undefined;
  return {
    name,
    resourceType,
    ...(typeof model === 'string' ? { model } : {}),
    ...(policy !== undefined ? { policy: policy as ComputePolicy } : {}),
    ...(typeof cardsPerNode === 'number' ? { cardsPerNode } : {}),
    ...(typeof memoryMiBPerCard === 'number' ? { memoryMiBPerCard } : {}),
    nodes,
    ...(text('cpu') ? { cpu: text('cpu') } : {}),
    ...(text('memory') ? { memory: text('memory') } : {}),
    ...(text('instanceType') ? { instanceType: text('instanceType') } : {}),
    ...(typeof value.maxPods === 'number' ? { maxPods: value.maxPods } : {}),
  };
}

function readPod(value: unknown, index: number): TopologyPod {
  const where = `pods[${index}]`;
  if (!isRecord(value)) throw new TopologyError(where, 'is not a mapping');
  const { name, namespace, node, computePolicy, containers, cards, labels } = value;
  if (typeof name !== 'string') throw new TopologyError(where, 'name is required');
  if (!Array.isArray(containers) || containers.length === 0) {
    throw new TopologyError(where, 'containers are required');
  }
  return {
    name,
    namespace: typeof namespace === 'string' ? namespace : 'default',
    ...(typeof node === 'string' ? { node } : {}),
    ...(typeof computePolicy === 'string' ? { computePolicy } : {}),
    containers: containers as ContainerRequest[],
    ...(isRecord(cards) ? { cards: cards as Record<string, number[]> } : {}),
    ...(isRecord(labels) ? { labels: labels as Record<string, string> } : {}),
  };
}

/** Reads and checks a topology document (YAML or JSON). */
export function parseTopology(text: string): Topology {
  const document: unknown = parse(text);
  if (!isRecord(document)) throw new TopologyError('document', 'is not a mapping');
  const pools = Array.isArray(document.pools) ? document.pools.map(readPool) : [];
  const pods = Array.isArray(document.pods) ? document.pods.map(readPod) : [];
  const topology: Topology = {
    name: typeof document.name === 'string' ? document.name : 'cluster',
    pools,
    pods,
  };
  const nodes = new Map(topologyNodes(topology).map((node) => [node.name, node]));
  for (const [index, pod] of pods.entries()) {
    if (pod.node !== undefined && !nodes.has(pod.node)) {
      throw new TopologyError(`pods[${index}]`, `node ${pod.node} is not in any pool`);
    }
    topologyPodObject(pod, nodes.get(pod.node ?? ''), `pods[${index}]`);
  }
  return topology;
}

export function loadTopology(file: string = DEFAULT_TOPOLOGY_FILE): Topology {
  return parseTopology(readFileSync(file, 'utf8'));
}

/** The Node objects of the topology, with the labels and allocatable of spec §5. */
export function topologyNodes(topology: Topology): TopologyNode[] {
  return topology.pools.flatMap((pool) =>
    Array.from({ length: pool.nodes }, (_, index) => topologyNode(pool, `${pool.name}-${index}`)),
  );
}

export function topologyNode(pool: TopologyPool, name: string): TopologyNode {
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    [POOL_LABEL]: pool.name,
  };
  if (pool.instanceType) labels['node.kubernetes.io/instance-type'] = pool.instanceType;
  const resources: Record<string, string> = {
    cpu: pool.cpu ?? '32',
    memory: pool.memory ?? '128Gi',
    pods: String(pool.maxPods ?? 110),
    'ephemeral-storage': '200Gi',
  };
  if (pool.resourceType !== 'none') {
    labels[VKE.scheduleLabel] = pool.resourceType;
    labels[VKE.defaultModelLabel] = pool.model ?? '';
    const cards = pool.cardsPerNode ?? 1;
    if (pool.resourceType === 'mgpu') {
      if (pool.policy) labels[VKE.computePolicyLabel] = pool.policy;
      // Spec §5: mgpu-core = 100 × cards, mgpu-memory = total MiB over the cards.
      resources[VKE.coreResource] = String(100 * cards);
      resources[VKE.memoryResource] = String((pool.memoryMiBPerCard ?? 0) * cards);
    } else {
      resources[VKE.nvidiaResource] = String(cards);
    }
  }
  return {
    name,
    pool,
    object: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels },
      spec: {},
      status: {
        capacity: { ...resources },
        allocatable: { ...resources },
        nodeInfo: {
          kubeletVersion: KUBELET_VERSION,
          kubeProxyVersion: KUBELET_VERSION,
          containerRuntimeVersion: 'containerd://1.6.38',
          operatingSystem: 'linux',
          architecture: 'amd64',
          osImage: 'veLinux 1.0',
          kernelVersion: '5.10.135-5.velinux1.x86_64',
        },
      },
    },
  };
}

/**
 * The Pod object of a topology pod, built from the same request the console's form takes
 * (so its resources and annotations are what the console would write), pinned when asked.
 */
export function topologyPodObject(
  pod: TopologyPod,
  node?: TopologyNode,
  where = `pod ${pod.namespace}/${pod.name}`,
): TopologyPodObject {
  const request: WorkloadRequest = {
    name: pod.name,
    namespace: pod.namespace,
    replicas: 1,
    ...(pod.computePolicy !== undefined ? { computePolicy: pod.computePolicy } : {}),
    containers: pod.containers.map((container) => ({
      name: container.name,
      image: container.image ?? 'busybox:1.36',
      ...(container.gpu
        ? { gpu: { ...container.gpu, multiCard: container.gpu.multiCard === true } }
        : {}),
    })),
  };
  const checked = checkRequest(request);
  if (!checked.valid || checked.manifest === undefined) {
    throw new TopologyError(
      where,
      checked.errors.map((error) => `${error.rule}: ${error.message}`).join('; '),
    );
  }
  const template = checked.manifest.spec.template;
  const annotations: Record<string, string> = { ...template.metadata.annotations };
  if (pod.cards !== undefined) {
    if (node === undefined) throw new TopologyError(where, 'cards need a node');
    const cardCount = node.pool.cardsPerNode ?? 0;
    for (const share of checked.containers) {
      const cards = pod.cards[share.name];
      if (
        !cards ||
        cards.length !== share.cards ||
        cards.some((card) => card < 0 || card >= cardCount)
      ) {
        throw new TopologyError(
          where,
          `container ${share.name} needs ${share.cards} card indexes below ${cardCount}`,
        );
      }
      annotations[gpuIndexAnnotation(share.name)] = cards.join(',');
    }
    annotations[VKE.assumedAnnotation] = 'true';
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.name,
      namespace: pod.namespace,
      labels: { ...template.metadata.labels, ...pod.labels },
      annotations,
    },
    spec: {
      ...template.spec,
      ...(node !== undefined ? { nodeName: node.name } : {}),
    },
  };
}

/** Every namespace a topology's pods live in. */
export function topologyNamespaces(topology: Topology): string[] {
  return [...new Set(['default', ...topology.pods.map((pod) => pod.namespace)])].sort();
}
