import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import type { KubeClients } from '@mgpu/kube-client';

export interface EventRecorderOptions {
  component: string;
  /** Events waiting beyond this are dropped, as client-go's broadcaster drops when full. */
  maxPending?: number;
  /** Events written at once. */
  concurrency?: number;
  log?: (message: string) => void;
}

/**
 * Writes Kubernetes Events in the background, like client-go's event broadcaster: the caller
 * never waits for the API, a burst of decisions is not slowed by its own events, and when far
 * behind the oldest-first queue drops new events instead of growing without bound.
 */
export class EventRecorder {
  private readonly pending: CoreV1Event[] = [];
  private active = 0;
  private dropped = 0;
  private stopped = false;
  private idleResolvers: (() => void)[] = [];

  constructor(
    private readonly clients: KubeClients,
    private readonly options: EventRecorderOptions,
  ) {}

  /** Records an event about a pod. */
  pod(pod: V1Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.stopped) return;
    if (this.pending.length >= (this.options.maxPending ?? 1000)) {
      this.dropped += 1;
      if (this.dropped === 1 || this.dropped % 1000 === 0) {
        this.options.log?.(`events: ${this.dropped} dropped (API too slow to keep up)`);
      }
      return;
    }
    const namespace = pod.metadata?.namespace ?? 'default';
    const now = new Date();
    this.pending.push({
      metadata: { generateName: `${pod.metadata?.name ?? 'pod'}.`, namespace },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'Pod',
        name: pod.metadata?.name ?? '',
        namespace,
        ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
      },
      type,
      reason,
      message,
      source: { component: this.options.component },
      reportingComponent: this.options.component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
    this.pump();
  }

  /** Resolves once every queued event is written. */
  idle(): Promise<void> {
    if (this.pending.length === 0 && this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.pending.length = 0;
  }

  private pump(): void {
    while (this.active < (this.options.concurrency ?? 2)) {
      const event = this.pending.shift();
      if (event === undefined) break;
      this.active += 1;
      const namespace = event.metadata.namespace ?? 'default';
      this.clients.core
        .createNamespacedEvent({ namespace, body: event })
        .catch((error: unknown) =>
          this.options.log?.(`events: ${namespace}/${event.involvedObject.name}: ${String(error)}`),
        )
        .finally(() => {
          this.active -= 1;
          this.pump();
        });
    }
    if (this.pending.length === 0 && this.active === 0) {
      const resolvers = this.idleResolvers;
      this.idleResolvers = [];
      for (const resolve of resolvers) resolve();
    }
  }
}
