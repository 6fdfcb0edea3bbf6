import { randomBytes } from 'node:crypto';
import { EventEmitter, on } from 'node:events';
import type { V1Pod } from '@kubernetes/client-node';
import {
  type AllocationEvent,
  AllocationEventSchema,
  type AllocationFilter,
  type AllocationRecord,
  AllocationRecordSchema,
  type MgpuNodeObject,
  type MgpuNodeStatus,
  podAllocationRecords,
  readMgpuNodeStatus,
} from '@mgpu/shared';
import type { z } from 'zod';
import type { ClusterClient } from '../cluster/cluster-client.js';
import { prepareOutput } from '../trpc/prepared-output.js';
import { snapshotEvents } from '../trpc/snapshot-events.js';

export interface FeedEntry {
  /** `<epoch>-<sequence>`: opaque to clients; resumable within this process's window. */
  id: string;
  event: AllocationEvent;
}

const podKey = (pod: V1Pod) =>
  `${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''}`;

/** Whether `filter` keeps every record (no namespace, workload, node or pod named). */
export const keepsEveryRecord = (filter: AllocationFilter): boolean =>
  !(filter.namespace || filter.workload || filter.node || filter.pod);

export function matchesFilter(record: AllocationRecord, filter: AllocationFilter): boolean {
  return (
    (!filter.namespace || record.namespace === filter.namespace) &&
    (!filter.workload || record.workload === filter.workload) &&
    (!filter.node || record.node === filter.node) &&
    (!filter.pod || record.pod === filter.pod)
  );
}

/** A feed id: `<epoch>-<sequence>`, nothing else (a snapshot part's id is not resumable). */
const FEED_ID = /^([0-9a-f]+)-(\d+)$/;

export interface AllocationFeedOptions {
  /** Changes kept for reconnecting subscribers (5,000 by default). */
  windowSize?: number;
  /** Told about a record that does not validate: it is left out of the feed. */
  onInvalidRecord?: (id: string, error: z.ZodError) => void;
}

/**
 * Allocation records (spec §7) kept current from the shared pod and MgpuNode informers, with a
 * numbered log of changes so a reconnecting subscriber gets exactly what it missed — no gap, no
 * duplicate — or, when it is too far behind (or the BFF restarted), a fresh snapshot.
 *
 * Each record is validated and serialised once, as it enters (issue 20): the events made of the
 * feed's records are prepared output, written from those JSON texts for every subscriber, and the
 * whole snapshot is made once per feed version however many dashboards ask for it.
 */
export class AllocationFeed {
  private readonly epoch = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly records = new Map<string, AllocationRecord>();
  /** Each admitted record's JSON: its next reading is compared with it; events are made of it. */
  private readonly recordJson = new WeakMap<AllocationRecord, string>();
  /** The unfiltered snapshot's events at one version, shared by every subscriber that asks then. */
  private snapshotCache: { sequence: number; partSize: number; entries: FeedEntry[] } | undefined;
  private readonly recordsByPod = new Map<string, string[]>();
  private readonly log: FeedEntry[] = [];
  private readonly windowSize: number;
  private readonly emitter = new EventEmitter();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly readings = new WeakMap<MgpuNodeObject, MgpuNodeStatus | undefined>();

  constructor(
    private readonly cluster: ClusterClient,
    private readonly options: AllocationFeedOptions = {},
  ) {
    this.windowSize = options.windowSize ?? 5000;
    // Every subscriber listens here; the count is bounded by connections, not by a leak.
    this.emitter.setMaxListeners(0);
  }

  start(): void {
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
        if (node !== undefined)
          for (const pod of this.cluster.podsOnNode(node)) this.recomputePod(pod);
      }),
    );
    this.recomputeAll();
  }

  stop(): void {
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    this.snapshotCache = undefined;
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

  /**
   * The records `filter` keeps as the events of a snapshot complete up to the current id, in
   * parts of `partSize` records. Unfiltered, they are made once per feed version and shared by
   * every subscriber, so the SSE transport serialises them once for all of them too.
   */
  snapshotEntries(filter: AllocationFilter, partSize: number): FeedEntry[] {
    const shared = keepsEveryRecord(filter);
    const cached = this.snapshotCache;
    if (shared && cached?.sequence === this.sequence && cached.partSize === partSize)
      return cached.entries;
    const entries = this.snapshotOf(this.currentId, this.snapshot(filter), partSize);
    if (shared) this.snapshotCache = { sequence: this.sequence, partSize, entries };
    return entries;
  }

  /** `records` (the feed's own: what an operator may see, say) as a snapshot up to `id`. */
  snapshotOf(id: string, records: readonly AllocationRecord[], partSize: number): FeedEntry[] {
    const at = new Date().toISOString();
    return snapshotEvents(id, records, partSize, (items, part) =>
      this.prepared({ type: 'snapshot', ...part, records: items, at }),
    );
  }

  /**
   * `event` prepared as valid output, its JSON written from its records' (a narrowed copy of a
   * feed event, say), when every record in it is the feed's own; any other is left as it is, to
   * the subscription's output validation.
   */
  prepared(event: AllocationEvent): AllocationEvent {
    const texts: string[] = [];
    for (const record of event.records) {
      const json = this.recordJson.get(record);
      if (json === undefined) return event;
      texts.push(json);
    }
    return prepareOutput(AllocationEventSchema, event, () => {
      const { records: _, ...envelope } = event;
      return `${JSON.stringify(envelope).slice(0, -1)},"records":[${texts.join(',')}]}`;
    });
  }

  /** Every change after `id`, or undefined when `id` is not from this process or fell out of the window. */
  entriesSince(id: string): FeedEntry[] | undefined {
    const [, epoch, sequenceText] = FEED_ID.exec(id) ?? [];
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

  private replacePod(key: string, candidates: readonly AllocationRecord[]): void {
    const next: AllocationRecord[] = [];
    const changed: AllocationRecord[] = [];
    for (const candidate of candidates) {
      const before = this.records.get(candidate.id);
      const record = this.admit(candidate, before);
      if (record === undefined) continue;
      next.push(record);
      if (record !== before) changed.push(record);
    }
    const previousIds = this.recordsByPod.get(key) ?? [];
    const nextIds = new Set(next.map((record) => record.id));
    const removed = previousIds
      .filter((id) => !nextIds.has(id))
      .map((id) => this.records.get(id))
      .filter((record): record is AllocationRecord => record !== undefined);
    for (const record of removed) this.records.delete(record.id);
    for (const record of changed) this.records.set(record.id, record);
    if (next.length > 0) this.recordsByPod.set(key, [...nextIds]);
    else this.recordsByPod.delete(key);
    if (removed.length > 0)
      this.append({ type: 'delete', records: removed, at: new Date().toISOString() });
    if (changed.length > 0)
      this.append({ type: 'upsert', records: changed, at: new Date().toISOString() });
  }

  /**
   * The record to keep for `candidate`: `before` when the reading did not change it, else the
   * candidate validated (here, once, for every subscriber it goes to) with its JSON kept;
   * undefined when it does not validate.
   */
  private admit(
    candidate: AllocationRecord,
    before: AllocationRecord | undefined,
  ): AllocationRecord | undefined {
    const beforeJson = before === undefined ? undefined : this.recordJson.get(before);
    if (JSON.stringify(candidate) === beforeJson) return before;
    const parsed = AllocationRecordSchema.safeParse(candidate);
    if (!parsed.success) {
      this.options.onInvalidRecord?.(candidate.id, parsed.error);
      return undefined;
    }
    const json = JSON.stringify(parsed.data);
    if (json === beforeJson) return before;
    this.recordJson.set(parsed.data, json);
    return parsed.data;
  }

  private append(event: AllocationEvent): void {
    this.sequence++;
    const entry = { id: this.currentId, event: this.prepared(event) };
    this.log.push(entry);
    if (this.log.length > this.windowSize) this.log.splice(0, this.log.length - this.windowSize);
    this.emitter.emit('entry', entry);
  }
}
