import { randomBytes } from 'node:crypto';
import { EventEmitter, on } from 'node:events';
import type { V1Pod } from '@kubernetes/client-node';
import {
  type AllocationEvent,
  type AllocationFilter,
  type AllocationRecord,
  type MgpuNodeObject,
  type MgpuNodeStatus,
  podAllocationRecords,
  readMgpuNodeStatus,
} from '@mgpu/shared';
import type { ClusterClient } from '../cluster/cluster-client.js';

export interface FeedEntry {
  /** `<epoch>-<sequence>`: opaque to clients; resumable within this process's window. */
  id: string;
  event: AllocationEvent;
}

/** The pod informer's index of pods by the node they are bound to. */
const POD_NODE_INDEX = 'spec.nodeName';

const podKey = (pod: V1Pod) =>
  `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;

export function matchesFilter(record: AllocationRecord, filter: AllocationFilter): boolean {
  return (
    (!filter.namespace || record.namespace === filter.namespace) &&
    (!filter.workload || record.workload === filter.workload) &&
    (!filter.node || record.node === filter.node) &&
    (!filter.pod || record.pod === filter.pod)
  );
}

/**
 * Allocation records (spec §7) kept current from the shared pod and MgpuNode informers, with a
 * numbered log of changes so a reconnecting subscriber gets exactly what it missed — no gap, no
 * duplicate — or, when it is too far behind (or the BFF restarted), a fresh snapshot.
 */
export class AllocationFeed {
  private readonly epoch = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly records = new Map<string, AllocationRecord>();
  private readonly recordsByPod = new Map<string, string[]>();
  private readonly log: FeedEntry[] = [];
  private readonly emitter = new EventEmitter();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly readings = new WeakMap<MgpuNodeObject, MgpuNodeStatus | undefined>();

  constructor(
    private readonly cluster: ClusterClient,
    private readonly windowSize = 5000,
  ) {
    // Every subscriber listens here; the count is bounded by connections, not by a leak.
    this.emitter.setMaxListeners(0);
  }

  start(): void {
    const podsByNode = this.cluster.pods.index(POD_NODE_INDEX, (pod) => pod.spec?.nodeName);
    this.unsubscribe.push(
      this.cluster.pods.subscribe((event) => {
        if (event.type === 'resync') this.recomputeAll();
        else if (event.type === 'delete') this.replacePod(podKey(event.object), []);
        else this.recomputePod(event.object);
      }),
      this.cluster.mgpuNodes.subscribe((event) => {
        if (event.type === 'resync') return this.recomputeAll();
        // The node's pods from the index, not a scan of every pod: node agents report often, and
        // the first list brings one report per node (10,000 × 30,000 pods was ~20 s of a start).
        const node = event.object.metadata?.name;
        if (node !== undefined) for (const pod of podsByNode.get(node)) this.recomputePod(pod);
      }),
    );
    this.recomputeAll();
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** The id of the newest change; a snapshot taken now is complete up to it. */
  get currentId(): string {
    return `${this.epoch}-${this.sequence}`;
  }

  get subscriberCount(): number {
    return this.emitter.listenerCount('entry');
  }

  snapshot(filter: AllocationFilter = {}): AllocationRecord[] {
    return [...this.records.values()].filter((record) => matchesFilter(record, filter));
  }

  /** Every change after `id`, or undefined when `id` is not from this process or fell out of the window. */
  entriesSince(id: string): FeedEntry[] | undefined {
    const [epoch, sequenceText] = id.split('-');
    const sequence = Number(sequenceText);
    if (epoch !== this.epoch || !Number.isInteger(sequence) || sequence > this.sequence)
      return undefined;
    if (sequence === this.sequence) return [];
    const first = this.log[0];
    const firstSequence = first ? Number(first.id.split('-')[1]) : this.sequence + 1;
    if (sequence + 1 < firstSequence) return undefined;
    return this.log.filter((entry) => Number(entry.id.split('-')[1]) > sequence);
  }

  /** Live entries from now on, until `signal` aborts. Take it before the snapshot: nothing is missed. */
  live(signal: AbortSignal | undefined): AsyncIterableIterator<[FeedEntry]> {
    return on(this.emitter, 'entry', signal ? { signal } : {}) as AsyncIterableIterator<
      [FeedEntry]
    >;
  }

  private reportOf(node: string | undefined): MgpuNodeStatus | undefined {
    if (node === undefined) return undefined;
    const report = this.cluster.mgpuNodes.get(node);
    if (report === undefined) return undefined;
    // Read once per report object (the informer replaces it when the report changes): the
    // schema's parse is ~45 µs at 8 cards, paid by every pod on the node at every recompute.
    if (!this.readings.has(report)) this.readings.set(report, readMgpuNodeStatus(report));
    return this.readings.get(report);
  }

  private recomputeAll(): void {
    const seen = new Set<string>();
    for (const pod of this.cluster.pods.list()) {
      seen.add(podKey(pod));
      this.recomputePod(pod);
    }
    for (const key of [...this.recordsByPod.keys()]) if (!seen.has(key)) this.replacePod(key, []);
  }

  private recomputePod(pod: V1Pod): void {
    const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    const next = terminal ? [] : podAllocationRecords(pod, this.reportOf(pod.spec?.nodeName));
    this.replacePod(podKey(pod), next);
  }

  private replacePod(key: string, next: AllocationRecord[]): void {
    const previousIds = this.recordsByPod.get(key) ?? [];
    const nextIds = new Set(next.map((record) => record.id));
    const removed = previousIds
      .filter((id) => !nextIds.has(id))
      .map((id) => this.records.get(id))
      .filter((record): record is AllocationRecord => record !== undefined);
    const changed = next.filter((record) => {
      const before = this.records.get(record.id);
      return before === undefined || JSON.stringify(before) !== JSON.stringify(record);
    });
    for (const record of removed) this.records.delete(record.id);
    for (const record of next) this.records.set(record.id, record);
    if (next.length > 0) this.recordsByPod.set(key, [...nextIds]);
    else this.recordsByPod.delete(key);
    if (removed.length > 0)
      this.append({ type: 'delete', records: removed, at: new Date().toISOString() });
    if (changed.length > 0)
      this.append({ type: 'upsert', records: changed, at: new Date().toISOString() });
  }

  private append(event: AllocationEvent): void {
    this.sequence++;
    const entry = { id: this.currentId, event };
    this.log.push(entry);
    if (this.log.length > this.windowSize) this.log.splice(0, this.log.length - this.windowSize);
    this.emitter.emit('entry', entry);
  }
}
