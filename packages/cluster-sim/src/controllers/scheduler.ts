import type { KubeConfig, V1Node, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound, mergePatch, objectKey, splitKey } from '@mgpu/kube-client';
import {
  allocationOf,
  applyAllocation,
  type CardPolicy,
  describeRejections,
  formatCardIndexes,
  gpuIndexAnnotation,
  isTerminalPod,
  type NodeState,
  nodeStateFromNode,
  type PodClaims,
  placePod,
  podDemandOf,
  readPodClaims,
  releaseAllocation,
  VKE,
} from '@mgpu/shared';
import type { RunningController, StartControllerOptions } from './controller.js';
import { Controller, controllerInformers } from './controller.js';
import {
  EventRecorder,
  type EventRecorderOptions,
  type EventRecorderStats,
} from './event-recorder.js';

export const SCHEDULER_NAME = 'mgpu-scheduler';

export interface SchedulerOptions extends StartControllerOptions {
  cardPolicy?: CardPolicy;
  modelLabel?: string;
  /** Pods whose `spec.schedulerName` is one of these (or unset) are ours. */
  schedulerNames?: readonly string[];
  /** Bindings in flight at once; decisions stay serial so the assume cache is exact. */
  maxInFlight?: number;
  /** Re-try unschedulable pods this often even when nothing seems to change. */
  retryUnschedulableMs?: number;
  /**
   * Also patch the annotations onto the pod before binding (one more request per pod). Off by
   * default: the Binding carries them, which kube-apiserver applies atomically with nodeName.
   */
  annotationPatch?: boolean;
  /** Write a `Scheduled` event per bound pod (kubectl describe shows it). */
  scheduledEvents?: boolean;
  /** Bounds and rate of the event writes (EventRecorder's defaults otherwise). */
  events?: Omit<EventRecorderOptions, 'component' | 'log'>;
}

/** The scheduler also says what became of its events (the throughput bench prints it). */
export interface RunningScheduler extends RunningController {
  eventStats(): EventRecorderStats;
}

/** What changes a node's placement: labels, allocatable, cordon and readiness. */
function nodeFingerprint(node: V1Node): string {
  const ready = node.status?.conditions?.find((condition) => condition.type === 'Ready')?.status;
  return JSON.stringify([
    node.metadata?.labels ?? {},
    node.status?.allocatable ?? node.status?.capacity ?? {},
    node.spec?.unschedulable ?? false,
    ready ?? null,
  ]);
}

/**
 * The mGPU scheduler: the two-layer `placePod` of `@mgpu/shared` over node states built from
 * Nodes and bound pods, plus an assume cache so back-to-back decisions never book a card
 * twice while their bindings are in flight. It writes `vke.volcengine.com/assumed` and
 * `gpu-index-container-<name>`, then binds; when nothing fits it says why per node group.
 */
export async function startScheduler(
  kubeConfig: KubeConfig,
  options: SchedulerOptions = {},
): Promise<RunningScheduler> {
  const { informers, controllerOptions } = controllerInformers(kubeConfig, options);
  const clients = informers.clients;
  const schedulerNames = new Set(options.schedulerNames ?? ['default-scheduler', SCHEDULER_NAME]);
  const maxInFlight = options.maxInFlight ?? 64;
  const log = options.log ?? (() => undefined);
  const placementOptions = {
    ...(options.cardPolicy ? { cardPolicy: options.cardPolicy } : {}),
    ...(options.modelLabel ? { modelLabel: options.modelLabel } : {}),
  };

  const events = new EventRecorder(clients, { ...options.events, component: SCHEDULER_NAME, log });
  const nodeStates = new Map<string, NodeState>();
  const nodeFingerprints = new Map<string, string>();
  let nodeList: NodeState[] = [];
  /** What each bound or assumed pod holds, by namespace/name. */
  const allocations = new Map<string, PodClaims>();
  /** Pods this scheduler has placed whose binding is not yet seen in the cache. */
  const assumed = new Set<string>();
  const unschedulable = new Set<string>();
  const inFlight = new Set<Promise<void>>();

  const rebuildNodeList = () => {
    nodeList = [...nodeStates.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  };

  const ownsPod = (pod: V1Pod) => {
    const name = pod.spec?.schedulerName;
    return name === undefined || schedulerNames.has(name);
  };

  const isPending = (pod: V1Pod) =>
    !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && !isTerminalPod(pod) && ownsPod(pod);

  const forget = (key: string) => {
    const allocation = allocations.get(key);
    if (allocation === undefined) return;
    allocations.delete(key);
    const state = nodeStates.get(allocation.node);
    if (state) releaseAllocation(state, allocation);
  };

  const remember = (allocation: PodClaims) => {
    allocations.set(allocation.key, allocation);
    const state = nodeStates.get(allocation.node);
    if (state) applyAllocation(state, allocation);
  };

  let retryTimer: NodeJS.Timeout | undefined;
  /** Something freed room or a node changed: give every unschedulable pod another go. */
  const retryUnschedulable = () => {
    if (retryTimer || unschedulable.size === 0) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      for (const key of unschedulable) queue.add(key);
    }, 50);
    retryTimer.unref?.();
  };

  const onPod = (pod: V1Pod) => {
    const key = objectKey(pod);
    if (pod.spec?.nodeName && !isTerminalPod(pod)) {
      unschedulable.delete(key);
      const current = allocations.get(key);
      if (assumed.has(key) && current?.node === pod.spec.nodeName) {
        // Our own binding came back: the assumed booking is now the real one.
        assumed.delete(key);
        return;
      }
      if (current === undefined || current.node !== pod.spec.nodeName) {
        forget(key);
        assumed.delete(key);
        const allocation = readPodClaims(pod);
        if (allocation) remember(allocation);
      }
      return;
    }
    if (pod.spec?.nodeName || isTerminalPod(pod) || pod.metadata?.deletionTimestamp) {
      if (!assumed.has(key) && allocations.has(key)) {
        forget(key);
        retryUnschedulable();
      }
      return;
    }
    if (isPending(pod) && !assumed.has(key)) queue.add(key);
  };

  const onPodDeleted = (pod: V1Pod) => {
    const key = objectKey(pod);
    unschedulable.delete(key);
    assumed.delete(key);
    if (allocations.has(key)) {
      forget(key);
      retryUnschedulable();
    }
  };

  const onNode = (node: V1Node) => {
    const name = node.metadata?.name ?? '';
    const fingerprint = nodeFingerprint(node);
    if (nodeFingerprints.get(name) === fingerprint) return;
    nodeFingerprints.set(name, fingerprint);
    const state = nodeStateFromNode(node, placementOptions);
    nodeStates.set(name, state);
    for (const allocation of allocations.values()) {
      if (allocation.node === name) applyAllocation(state, allocation);
    }
    rebuildNodeList();
    retryUnschedulable();
  };

  const onNodeDeleted = (node: V1Node) => {
    const name = node.metadata?.name ?? '';
    nodeStates.delete(name);
    nodeFingerprints.delete(name);
    rebuildNodeList();
  };

  async function bind(pod: V1Pod, allocation: PodClaims): Promise<void> {
    const { namespace, name } = splitKey(allocation.key);
    const annotations: Record<string, string> = { [VKE.assumedAnnotation]: 'true' };
    for (const container of allocation.containers) {
      annotations[gpuIndexAnnotation(container.name)] = formatCardIndexes(container.cards);
    }
    try {
      if (options.annotationPatch === true && allocation.containers.length > 0) {
        await clients.core.patchNamespacedPod(
          { name, namespace, body: { metadata: { annotations } } },
          mergePatch(),
        );
      }
      // The Binding carries the annotations too: kube-apiserver copies a Binding's annotations
      // onto the pod together with nodeName, so no one ever sees a bound pod without its cards.
      await clients.core.createNamespacedBinding({
        namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: {
            name,
            namespace,
            ...(allocation.containers.length > 0 ? { annotations } : {}),
            ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
          },
          target: { apiVersion: 'v1', kind: 'Node', name: allocation.node },
        },
      });
    } catch (error) {
      // The pod went away or was bound elsewhere: give the cards back and look again.
      assumed.delete(allocation.key);
      forget(allocation.key);
      if (!isNotFound(error) && !isConflict(error)) {
        log(`scheduler: binding ${allocation.key} failed: ${String(error)}`);
      }
      queue.addAfter(allocation.key, 100);
      return;
    }
    if (options.scheduledEvents !== false) {
      const cards = allocation.containers
        .map((container) => `${container.name}=[${formatCardIndexes(container.cards)}]`)
        .join(' ');
      events.pod(
        pod,
        'Normal',
        'Scheduled',
        `Successfully assigned ${allocation.key} to ${allocation.node}${cards ? ` (cards ${cards})` : ''}`,
      );
    }
  }

  async function reportUnschedulable(pod: V1Pod, message: string): Promise<void> {
    const condition = pod.status?.conditions?.find((item) => item.type === 'PodScheduled');
    if (
      condition?.status === 'False' &&
      condition.reason === 'Unschedulable' &&
      condition.message === message
    ) {
      return;
    }
    const { namespace, name } = splitKey(objectKey(pod));
    const others = (pod.status?.conditions ?? []).filter((item) => item.type !== 'PodScheduled');
    await clients.core.patchNamespacedPodStatus(
      {
        name,
        namespace,
        body: {
          status: {
            phase: 'Pending',
            conditions: [
              ...others,
              {
                type: 'PodScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message,
                lastProbeTime: null,
                lastTransitionTime: new Date().toISOString(),
              },
            ],
          },
        },
      },
      mergePatch(),
    );
    events.pod(pod, 'Warning', 'FailedScheduling', message);
  }

  async function schedule(key: string): Promise<void> {
    if (assumed.has(key)) return;
    const { namespace, name } = splitKey(key);
    const pod = pods.get(name, namespace);
    if (pod === undefined || !isPending(pod)) {
      unschedulable.delete(key);
      return;
    }
    const demand = podDemandOf(pod, placementOptions);
    const result = placePod(demand, nodeList, placementOptions);
    if (!result.ok) {
      unschedulable.add(key);
      const message = describeRejections(result);
      try {
        await reportUnschedulable(pod, message);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      if (options.retryUnschedulableMs !== 0)
        queue.addAfter(key, options.retryUnschedulableMs ?? 10_000);
      return;
    }
    unschedulable.delete(key);
    const allocation = allocationOf(demand, result.node, result.cards);
    // Assume: book the cards now, before the binding round-trip, so the next decision sees them.
    assumed.add(key);
    remember(allocation);
    const binding = bind(pod, allocation).finally(() => inFlight.delete(binding));
    inFlight.add(binding);
    if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  }

  // Decisions are serial (one worker): each sees every earlier booking.
  const queue = new Controller('scheduler', { workers: 1, ...controllerOptions, log });
  // Nodes first: the pods' first decisions see every node.
  queue.watch(informers.nodes(), { add: onNode, update: onNode, delete: onNodeDeleted });
  await queue.waitForCacheSync();
  const pods = queue.watch(informers.pods(), {
    add: onPod,
    update: onPod,
    delete: onPodDeleted,
  });
  await queue.waitForCacheSync();
  // Pods listed before the cache existed were queued by `onPod`; the workers start now.
  log(`scheduler: ${nodeStates.size} nodes, ${allocations.size} bound pods`);
  await queue.run(schedule);

  return {
    eventStats: () => events.stats(),
    async stop() {
      const stopping = queue.stop();
      events.stop();
      if (retryTimer) clearTimeout(retryTimer);
      await Promise.allSettled([...inFlight]);
      await stopping;
    },
    async idle() {
      for (;;) {
        await queue.idle();
        if (inFlight.size === 0 && queue.length === 0) break;
        await Promise.allSettled([...inFlight]);
      }
      await events.idle();
    },
  };
}
