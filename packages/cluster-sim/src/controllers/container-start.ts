import type { V1Pod } from '@kubernetes/client-node';
import type { MgpuInstance } from '@mgpu/shared';
import type { ContainerLogStore } from './container-logs.js';
import type { EventRecorder } from './event-recorder.js';

/** What a node agent set up for one pod, as it tells the pod's Events and its containers' logs. */
export interface StartedPod {
  node: string;
  policy: string;
  containers: readonly { name: string; image: string }[];
  instances: readonly MgpuInstance[];
  whole: readonly { card: number; container: string }[];
}

/**
 * A started pod's record, as a kubelet leaves it: the Pulled and Started Events of each
 * container (a kubelet also says Created; two per container keep a large cluster's writes
 * down), and in each container's log what the node gave it (the mGPU instance per card with its
 * compute weight and memory limit, or whole cards): what an operator checks when the numbers on
 * the card look wrong. Both are optional (the real tier's agents have no log store).
 */
export function announceStart(
  pod: V1Pod,
  started: StartedPod,
  out: { events?: EventRecorder | undefined; logs?: ContainerLogStore | undefined },
): void {
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  for (const container of started.containers) {
    out.events?.pod(
      pod,
      'Normal',
      'Pulled',
      `Container image "${container.image}" already present on machine`,
    );
    out.events?.pod(pod, 'Normal', 'Started', `Started container ${container.name}`);
    if (!out.logs) continue;
    const logs = out.logs;
    logs.open(namespace, name, pod.metadata?.uid ?? '', container.name);
    const write = (text: string) => logs.write(namespace, name, container.name, text);
    write(`node ${started.node}: starting container ${container.name} (image ${container.image})`);
    const instances = started.instances.filter((instance) => instance.container === container.name);
    for (const instance of instances)
      write(
        `mGPU instance ${instance.device} on card ${instance.device_id}: compute weight ${instance.compute_weight} %, memory limit ${instance.vmem_limit} MiB, policy ${started.policy}`,
      );
    const whole = started.whole.filter((card) => card.container === container.name);
    for (const card of whole) write(`whole card ${card.card} (nvidia.com/gpu), not shared`);
    if (instances.length === 0 && whole.length === 0) write('no GPU: this container has no card');
    write(`container ${container.name} started`);
  }
}
