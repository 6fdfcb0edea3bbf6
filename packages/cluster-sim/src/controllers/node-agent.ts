import { createHash } from 'node:crypto';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound, mergePatch, objectKey, splitKey } from '@mgpu/kube-client';
import {
  APP_LABEL,
  bookOnCard,
  type CardType,
  claimMemoryMiB,
  DEFAULT_NODE_POLICY,
  emptyCard,
  type GpuUsageSnapshot,
  isTerminalPod,
  MAX_INSTANCES_PER_CARD,
  MGPU_NODE_API_VERSION,
  MGPU_NODE_RESOURCE,
  type MgpuCard,
  type MgpuInstance,
  nodeStateFromNode,
  readPodClaims,
  simulatedUtilizationOf,
  VKE,
  WHOLE_CARD_CLAIM,
  type WrittenMgpuNode,
  type WrittenMgpuNodeStatus,
  workloadOfPod,
} from '@mgpu/shared';
import { modelledOf, runningGpuNodes } from '../gpu-usage/agent-usage.js';
import { gpuUsageSnapshot, instanceProcesses } from '../gpu-usage/snapshot.js';
import { type Topology, type TopologyNode, topologyNodes } from '../topology/topology.js';
import type { ContainerLogStore } from './container-logs.js';
import { announceStart } from './container-start.js';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers } from './controller.js';
import { EventRecorder } from './event-recorder.js';
import { nodeIP, registerNode } from './node-registration.js';
import { WorkQueue } from './work-queue.js';

/** A node the agents run, as the cluster's topology describes it. */
export interface AgentNodeSpec {
  /** The Node object to register (labels; status.capacity/allocatable/nodeInfo). */
  object: TopologyNode['object'];
}

export interface NodeAgentOptions extends StartControllerOptions {
  /** The cluster whose nodes the agents run (every node of every pool). */
  topology?: Topology;
  /** Or the nodes, one by one. */
  nodes?: readonly AgentNodeSpec[];
  /** Debounce of MgpuNode report writes per node. */
  reportDelayMs?: number;
  /** Where the containers' logs go (the embedded API server serves them); absent: no logs. */
  logs?: ContainerLogStore;
}

interface RunningContainer {
  name: string;
  containerID: string;
  image: string;
}

interface RunningPod {
  key: string;
  uid: string;
  instances: MgpuInstance[];
  whole: { card: number; container: string; containerID: string }[];
  containers: RunningContainer[];
  /** Its replicas share a usage profile (the embedded cluster's model of GPU use). */
  workload: string;
  /** The pod's simulated-utilization annotation, when valid. */
  annotatedPercent: number | undefined;
}

/** The node agents, and what their containers use of the GPUs (the model's figures). */
export interface NodeAgents extends RunningController {
  /** Every card of every GPU node and every container on them, at `nowMs` (default now). */
  gpuUsage(nowMs?: number): GpuUsageSnapshot;
}

/** One simulated kubelet + mGPU driver: its cards' instance slots and the pods it runs. */
interface AgentNode {
  name: string;
  index: number;
  resourceType: CardType | undefined;
  model: string;
  policy: string;
  memoryMiBPerCard: number;
  cardCount: number;
  /** card → instance slot → taken. */
  slots: boolean[][];
  pods: Map<string, RunningPod>;
  podIPs: number;
  cardUuids: string[];
  object: TopologyNode['object'];
}

const hex = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/** A stable containerd ID: the same pod container always gets the same one. */
export const containerIdOf = (podUid: string, container: string) =>
  `containerd://${hex(`${podUid}/${container}`, 64)}`;

const cardUuid = (node: string, card: number) => {
  const h = hex(`${node}/gpu${card}`, 32);
  return `GPU-${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

const podIP = (index: number, serial: number) =>
  `10.${16 + Math.floor(index / 256)}.${index % 256}.${(serial % 253) + 2}`;

/**
 * kwok-style node agents, one per node with its own state: they register their Node (Ready,
 * capacity and allocatable), start the pods bound to them (Running, containerIDs), create one
 * mGPU instance per container per card and publish every node-side field of spec §6 in the
 * node's `MgpuNode` report; all of it is freed when the pod goes.
 */
export async function startNodeAgents(
  kubeConfig: KubeConfig,
  options: NodeAgentOptions,
): Promise<NodeAgents> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;
  const log = options.log ?? (() => undefined);
  // What a kubelet reports about the containers it starts (Pulled, Created, Started).
  const events = new EventRecorder(clients, { component: 'kubelet', log });
  const reportDelayMs = options.reportDelayMs ?? 100;
  const agents = new Map<string, AgentNode>();
  /** Which node runs a pod, for pods that disappear from the cache. */
  const podNode = new Map<string, string>();

  const specs: readonly AgentNodeSpec[] =
    options.nodes ?? (options.topology ? topologyNodes(options.topology) : []);
  specs.forEach((spec, index) => {
    const state = nodeStateFromNode(spec.object);
    const labels = spec.object.metadata.labels;
    agents.set(state.name, {
      name: state.name,
      index,
      resourceType: state.resourceType,
      model: state.model ?? '',
      policy: labels[VKE.computePolicyLabel] ?? DEFAULT_NODE_POLICY,
      memoryMiBPerCard: state.memoryMiBPerCard,
      cardCount: state.cards.length,
      slots: state.cards.map(() => Array.from({ length: MAX_INSTANCES_PER_CARD }, () => false)),
      pods: new Map(),
      podIPs: 0,
      cardUuids: state.cards.map((_, card) => cardUuid(state.name, card)),
      object: spec.object,
    });
  });

  const report = (agent: AgentNode): WrittenMgpuNodeStatus => {
    const cards: MgpuCard[] = Array.from({ length: agent.cardCount }, (_, index) => ({
      index,
      device: `/dev/mgpu${index}`,
      uuid: cardUuid(agent.name, index),
      model: agent.model,
      memoryMiB: agent.memoryMiBPerCard,
      allocatedCompute: 0,
      allocatedMemoryMiB: 0,
      instances: [],
    }));
    // What the node has given out, booked by the ledger from the instances it created.
    const usage = cards.map((card) => emptyCard(card.index));
    const pods = [...agent.pods.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
    for (const pod of pods) {
      for (const instance of pod.instances) {
        const card = cards[instance.device_id];
        const used = usage[instance.device_id];
        if (!card || !used) continue;
        card.instances.push(instance);
        bookOnCard(
          used,
          {
            type: 'mgpu',
            perCard: {
              computePercent: instance.compute_weight_online,
              memoryMiB: instance.vmem_limit,
            },
          },
          card.memoryMiB,
        );
      }
      for (const whole of pod.whole) {
        const card = cards[whole.card];
        const used = usage[whole.card];
        if (!card || !used) continue;
        const { namespace, name } = splitKey(pod.key);
        card.wholeNvidia = {
          namespace,
          pod: name,
          container: whole.container,
          container_id: whole.containerID,
        };
        bookOnCard(used, WHOLE_CARD_CLAIM, card.memoryMiB);
      }
    }
    for (const card of cards) {
      card.allocatedCompute = usage[card.index]?.usedCompute ?? 0;
      card.allocatedMemoryMiB = usage[card.index]?.usedMemoryMiB ?? 0;
      card.instances.sort((a, b) => a.instance_id - b.instance_id);
    }
    return {
      nodeName: agent.name,
      resourceType: agent.resourceType === 'nvidia' ? 'nvidia' : 'mgpu',
      model: agent.model,
      policy: agent.resourceType === 'nvidia' ? 'nvidia' : agent.policy,
      memoryMiBPerCard: agent.memoryMiBPerCard,
      cards,
      updatedAt: new Date().toISOString(),
    };
  };

  async function publishReport(name: string): Promise<void> {
    const agent = agents.get(name);
    if (!agent || agent.resourceType === undefined) return;
    const status = report(agent);
    const patch = () =>
      clients.custom.patchClusterCustomObjectStatus(
        {
          group: MGPU_NODE_RESOURCE.group,
          version: MGPU_NODE_RESOURCE.version,
          plural: MGPU_NODE_RESOURCE.plural,
          name,
          body: { status },
        },
        mergePatch(),
      );
    try {
      await patch();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const body: WrittenMgpuNode = {
        apiVersion: MGPU_NODE_API_VERSION,
        kind: MGPU_NODE_RESOURCE.kind,
        metadata: { name },
        spec: {
          nodeName: name,
          resourceType: status.resourceType,
          model: agent.model,
          cards: agent.cardCount,
        },
      };
      try {
        await clients.custom.createClusterCustomObject({
          group: MGPU_NODE_RESOURCE.group,
          version: MGPU_NODE_RESOURCE.version,
          plural: MGPU_NODE_RESOURCE.plural,
          body,
        });
      } catch (createError) {
        if (!isConflict(createError)) throw createError;
      }
      await patch();
    }
  }

  const reports = new WorkQueue(publishReport, {
    workers: 4,
    onError: (key, error) => log(`node agent: report ${key}: ${String(error)}`),
  });
  const scheduleReport = (name: string) => reports.addAfter(name, reportDelayMs);

  /** Frees a pod's instances and slots on its node. */
  const release = (key: string) => {
    const nodeName = podNode.get(key);
    podNode.delete(key);
    const agent = nodeName ? agents.get(nodeName) : undefined;
    const running = agent?.pods.get(key);
    if (!agent || !running) return;
    for (const instance of running.instances) {
      const slots = agent.slots[instance.device_id];
      if (slots) slots[instance.instance_id] = false;
    }
    agent.pods.delete(key);
    const { namespace, name } = splitKey(key);
    options.logs?.close(namespace, name);
    scheduleReport(agent.name);
  };

  const isRunningAsReported = (pod: V1Pod, running: RunningPod) =>
    pod.status?.phase === 'Running' &&
    running.containers.every((container) =>
      pod.status?.containerStatuses?.some(
        (status) => status.name === container.name && status.containerID === container.containerID,
      ),
    );

  /** Creates the pod's mGPU instances from the scheduler's card choice (idempotent per pod). */
  const start = (agent: AgentNode, pod: V1Pod): RunningPod => {
    const key = objectKey(pod);
    const existing = agent.pods.get(key);
    const uid = pod.metadata?.uid ?? '';
    const annotatedPercent = simulatedUtilizationOf(pod.metadata?.annotations);
    if (existing && existing.uid === uid) {
      // `kubectl annotate` on a running pod changes its simulated use, and so its vmem_info.
      if (existing.annotatedPercent !== annotatedPercent) {
        existing.annotatedPercent = annotatedPercent;
        for (const instance of existing.instances)
          Object.assign(
            instance,
            instanceProcesses(modelledOf(existing, instance), instance.container_id),
          );
        scheduleReport(agent.name);
      }
      return existing;
    }
    if (existing) release(key);
    const containers: RunningContainer[] = (pod.spec?.containers ?? []).map((container) => ({
      name: container.name,
      containerID: containerIdOf(uid, container.name),
      image: container.image ?? '',
    }));
    const { namespace, name } = splitKey(key);
    const running: RunningPod = {
      key,
      uid,
      instances: [],
      whole: [],
      containers,
      workload: workloadOfPod(pod)?.name ?? pod.metadata?.labels?.[APP_LABEL] ?? name,
      annotatedPercent,
    };
    const claims = readPodClaims(pod);
    for (const container of claims?.containers ?? []) {
      const containerID = containerIdOf(uid, container.name);
      for (const card of container.cards) {
        if (container.type === 'nvidia') {
          running.whole.push({ card, container: container.name, containerID });
          continue;
        }
        const slots = agent.slots[card];
        const slot = slots?.indexOf(false) ?? -1;
        if (!slots || slot < 0) {
          log(
            `node agent ${agent.name}: no free instance on card ${card} for ${key}/${container.name}`,
          );
          continue;
        }
        slots[slot] = true;
        const memory = claimMemoryMiB(container.perCard, agent.memoryMiBPerCard);
        const percent = container.perCard.computePercent;
        // The weights mirror the asked per-card share (seed: 1.2 on 2 cards → 60 and 60).
        // QoS on for the policies that enforce a share; the exact semantics are not public.
        const instance: MgpuInstance = {
          namespace,
          pod: name,
          container: container.name,
          device: `/dev/mgpu${card}inst${slot}`,
          container_id: containerID,
          device_id: card,
          instance_id: slot,
          pod_uid: '',
          compute_priority: 0,
          compute_qos_enable: agent.policy !== 'native-burst-share',
          compute_weight: percent,
          compute_weight_native_burst: agent.policy === 'native-burst-share' ? percent : 0,
          compute_weight_online: percent,
          minor: card * MAX_INSTANCES_PER_CARD + slot,
          online: true,
          tasks: [],
          vmem_info: { free_mib: memory, used: [] },
          vmem_limit: memory,
        };
        // What the model says the container's process holds on the card (spec §6 vmem_info).
        Object.assign(instance, instanceProcesses(modelledOf(running, instance), containerID));
        running.instances.push(instance);
      }
    }
    agent.pods.set(key, running);
    podNode.set(key, agent.name);
    scheduleReport(agent.name);
    // A pod already reported running with these containers (an agent restarted from the state
    // file) was announced before: its Events say Pulled/Started once, as a kubelet's do.
    const announced = isRunningAsReported(pod, running);
    announceStart(
      pod,
      { node: agent.name, policy: agent.policy, ...running },
      { events: announced ? undefined : events, logs: options.logs },
    );
    return running;
  };

  async function reconcilePod(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = pods.get(name, namespace);
    const agent = pod?.spec?.nodeName ? agents.get(pod.spec.nodeName) : undefined;
    if (!pod || !agent || isTerminalPod(pod)) {
      release(key);
      return;
    }
    if (podNode.get(key) !== undefined && podNode.get(key) !== agent.name) release(key);
    if (pod.metadata?.deletionTimestamp) {
      // What a kubelet does once the containers stopped: free the devices, finish the delete.
      release(key);
      try {
        await clients.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      return;
    }
    const running = start(agent, pod);
    if (isRunningAsReported(pod, running)) return;
    agent.podIPs += 1;
    const now = new Date().toISOString();
    const ip = pod.status?.podIP ?? podIP(agent.index, agent.podIPs);
    const condition = (type: string) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: now,
    });
    try {
      await clients.core.patchNamespacedPodStatus(
        {
          name,
          namespace,
          body: {
            status: {
              phase: 'Running',
              hostIP: nodeIP(agent.index),
              hostIPs: [{ ip: nodeIP(agent.index) }],
              podIP: ip,
              podIPs: [{ ip }],
              startTime: pod.status?.startTime ?? now,
              // No qosClass: the API server set it at create and refuses a change (422 on any pod
              // with CPU or memory requests, which is not BestEffort).
              conditions: [
                condition('PodReadyToStartContainers'),
                condition('Initialized'),
                condition('Ready'),
                condition('ContainersReady'),
                condition('PodScheduled'),
              ],
              containerStatuses: running.containers.map((container) => ({
                name: container.name,
                ready: true,
                started: true,
                restartCount: 0,
                image: container.image,
                imageID: `${container.image}@sha256:${hex(container.image, 64)}`,
                containerID: container.containerID,
                state: { running: { startedAt: now } },
              })),
            },
          },
        },
        mergePatch(),
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
      release(key);
    }
  }

  const podQueue = new Controller('node agent: pod', { workers: 8, ...controllerOptions, log });

  // Register in parallel, a few at a time: a 1,000-node cluster comes up in seconds.
  const pending = [...agents.values()];
  await Promise.all(
    Array.from({ length: Math.min(16, pending.length) }, async () => {
      for (let agent = pending.shift(); agent; agent = pending.shift())
        await registerNode(clients, agent);
    }),
  );

  const enqueue = (pod: V1Pod) => {
    const key = objectKey(pod);
    if ((pod.spec?.nodeName && agents.has(pod.spec.nodeName)) || podNode.has(key))
      podQueue.add(key);
  };
  const pods = podQueue.watch(informers.pods(), {
    add: enqueue,
    update: enqueue,
    delete: (pod) => podQueue.add(objectKey(pod)),
  });
  await podQueue.run(reconcilePod);
  for (const agent of agents.values()) scheduleReport(agent.name);

  return {
    gpuUsage: (nowMs = Date.now()) => gpuUsageSnapshot(runningGpuNodes(agents.values()), nowMs),
    async stop() {
      reports.stop();
      events.stop();
      await podQueue.stop();
    },
    async idle() {
      await podQueue.idle();
      await reports.idle();
      await events.idle();
    },
  };
}
