import type { IncomingMessage } from 'node:http';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { type KubeClients, openPodLog, type PodLogRequest, toKubeError } from '@mgpu/kube-client';

/**
 * One pod's diagnosis reads (`pod.events`, `pod.logs`), made with the client's identity (an
 * operator's own under per-user auth, so their RBAC decides): never from the shared informers,
 * which read as the console.
 */
export class PodReads {
  constructor(private readonly clients: KubeClients) {}

  async read(namespace: string, name: string): Promise<V1Pod> {
    try {
      return await this.clients.core.readNamespacedPod({ namespace, name });
    } catch (error) {
      throw toKubeError(error);
    }
  }

  /** The Events about this pod (this uid, when given: not those of an earlier pod of its name). */
  async events(namespace: string, name: string, uid?: string): Promise<CoreV1Event[]> {
    try {
      const list = await this.clients.core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${name}`,
      });
      return list.items.filter(
        (event) => !uid || !event.involvedObject.uid || event.involvedObject.uid === uid,
      );
    } catch (error) {
      throw toKubeError(error);
    }
  }

  /** The container's log as it streams (`openPodLog`); `signal` ends it. */
  log(request: PodLogRequest, signal: AbortSignal): Promise<IncomingMessage> {
    return openPodLog(this.clients.kubeConfig, request, signal);
  }
}
