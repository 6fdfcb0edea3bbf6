import {
  type AllocationEvent,
  type AllocationRecord,
  type NodeLayout,
  SnapshotAssembly,
  type SnapshotPart,
} from '@mgpu/shared';
import {
  lowerBound,
  PersistentMap,
  type PersistentMapDraft,
  SortedList,
  type SortedListDraft,
} from './persistent-collections.js';

/** How many records name each value (namespace or workload), and the values in sorted order. */
export interface Tally {
  readonly counts: PersistentMap<number>;
  /** A new array only when a value appears or goes: the filter boxes' choices. */
  readonly names: readonly string[];
}

/**
 * What the dashboard knows: the records from `allocations.watch` and the GPU nodes' shapes from
 * `cluster.layout`. Never changed in place: `applyEvents` and `withLayout` (allocation-layout.ts) return a new state
 * that shares whatever they did not touch, so readers can compare parts by identity.
 */
export interface AllocationState {
  readonly records: PersistentMap<AllocationRecord>;
  /** Each node's records in arrival order; a change makes a new array for that node only. */
  readonly byNode: PersistentMap<readonly AllocationRecord[]>;
  /** Every record in list order (namespace, pod, container, card), beside its `sortKey`. */
  readonly sorted: SortedList<AllocationRecord>;
  readonly namespaces: Tally;
  readonly workloads: Tally;
  /** GPU nodes by name (nodes without a GPU resource are left out). */
  readonly layout: ReadonlyMap<string, NodeLayout>;
  /** The layout's names, sorted: a new array only when nodes join or leave. */
  readonly nodeNames: readonly string[];
  /** Whether a whole snapshot has been applied. */
  readonly hasSnapshot: boolean;
  /** Counts the events applied (a snapshot in parts counts once, at its last part). */
  readonly revision: number;
  /** The parts so far of a snapshot whose last part has not arrived. */
  readonly snapshotParts:
    | { readonly parts: readonly (readonly AllocationRecord[])[]; readonly next: number }
    | undefined;
}

type RecordParts = Pick<
  AllocationState,
  'records' | 'byNode' | 'sorted' | 'namespaces' | 'workloads'
>;

/** The instance list's order: namespace, pod, container, card. */
export const sortKey = (record: AllocationRecord): string =>
  `${record.namespace}\u0000${record.pod}\u0000${record.container}\u0000${String(record.card).padStart(2, '0')}`;

const emptyTally: Tally = { counts: PersistentMap.empty(), names: [] };

export const initialAllocationState: AllocationState = {
  records: PersistentMap.empty(),
  byNode: PersistentMap.empty(),
  sorted: SortedList.empty(),
  namespaces: emptyTally,
  workloads: emptyTally,
  layout: new Map(),
  nodeNames: [],
  hasSnapshot: false,
  revision: 0,
  snapshotParts: undefined,
};

/**
 * The state after a batch of stream events, applied in order: an upsert adds or replaces records
 * by id (a record that moved leaves its old node), a delete removes them, and a snapshot replaces
 * every record before it — one in parts only once its last part is in (the parts before change
 * nothing but the parts held; a part out of order drops them, see `SnapshotAssembly`). The work
 * follows the batch's size, not the number of records held.
 */
export function applyEvents(
  state: AllocationState,
  events: readonly AllocationEvent[],
): AllocationState {
  let { snapshotParts, hasSnapshot, revision } = state;
  let draft: RecordsDraft | undefined;
  for (const event of events) {
    if (event.type === 'snapshot') {
      const added = addSnapshotPart(snapshotParts, event, event.records);
      snapshotParts = added.held;
      if (added.whole === undefined) continue;
      draft = new RecordsDraft(recordParts(added.whole));
      hasSnapshot = true;
    } else {
      draft ??= new RecordsDraft(state);
      for (const record of event.records)
        if (event.type === 'upsert') draft.put(record);
        else draft.remove(record.id);
    }
    revision++;
  }
  if (draft === undefined && snapshotParts === state.snapshotParts) return state;
  return { ...state, ...draft?.done(), snapshotParts, hasSnapshot, revision };
}

/** One event's worth of `applyEvents`. */
export const applyEvent = (state: AllocationState, event: AllocationEvent): AllocationState =>
  applyEvents(state, [event]);

/** `SnapshotAssembly.add` without changing anything: the parts held after `part`, and the whole. */
function addSnapshotPart(
  held: AllocationState['snapshotParts'],
  part: SnapshotPart,
  records: readonly AllocationRecord[],
): { held: AllocationState['snapshotParts']; whole?: readonly AllocationRecord[] } {
  let parts: readonly (readonly AllocationRecord[])[];
  if (SnapshotAssembly.begins(part)) parts = [records];
  else if (held === undefined || part.part !== held.next) return { held: undefined };
  else parts = [...held.parts, records];
  if (part.more) return { held: { parts, next: (part.part ?? 0) + 1 } };
  return { held: undefined, whole: parts.length === 1 ? records : parts.flat() };
}

/** The record parts of a whole snapshot, built at once (one sort, no per-record edits). */
function recordParts(snapshot: readonly AllocationRecord[]): RecordParts {
  const records = new Map<string, AllocationRecord>();
  for (const record of snapshot) records.set(record.id, record);
  const byNode = new Map<string, AllocationRecord[]>();
  const namespaces = new Map<string, number>();
  const workloads = new Map<string, number>();
  for (const record of records.values()) {
    const held = byNode.get(record.node);
    if (held) held.push(record);
    else byNode.set(record.node, [record]);
    namespaces.set(record.namespace, (namespaces.get(record.namespace) ?? 0) + 1);
    if (record.workload !== null)
      workloads.set(record.workload, (workloads.get(record.workload) ?? 0) + 1);
  }
  const entries = [...records.values()]
    .map((record) => [sortKey(record), record] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const tally = (counts: Map<string, number>): Tally => ({
    counts: PersistentMap.from(counts),
    names: [...counts.keys()].sort(),
  });
  return {
    records: PersistentMap.from(records),
    byNode: PersistentMap.from(byNode),
    sorted: SortedList.fromSorted(entries),
    namespaces: tally(namespaces),
    workloads: tally(workloads),
  };
}

/** A tally being changed within one batch: its names are copied once, at the first change. */
class TallyDraft {
  private readonly counts: PersistentMapDraft<number>;
  private names: readonly string[];
  private ownNames: string[] | undefined;

  constructor(tally: Tally) {
    this.counts = tally.counts.edit();
    this.names = tally.names;
  }

  bump(name: string | null, delta: 1 | -1): void {
    if (name === null) return;
    const next = (this.counts.get(name) ?? 0) + delta;
    if (next <= 0) {
      if (!this.counts.delete(name)) return;
      const names = this.writableNames();
      names.splice(lowerBound(names, name), 1);
    } else {
      if (!this.counts.has(name)) {
        const names = this.writableNames();
        names.splice(lowerBound(names, name), 0, name);
      }
      this.counts.set(name, next);
    }
  }

  private writableNames(): string[] {
    this.ownNames ??= this.names.slice();
    this.names = this.ownNames;
    return this.ownNames;
  }

  done(): Tally {
    return { counts: this.counts.done(), names: this.names };
  }
}

/** The record parts being changed within one batch (each copied at its first change). */
class RecordsDraft {
  private readonly records: PersistentMapDraft<AllocationRecord>;
  private readonly byNode: PersistentMapDraft<readonly AllocationRecord[]>;
  private readonly namespaces: TallyDraft;
  private readonly workloads: TallyDraft;
  private readonly sorted: SortedListDraft<AllocationRecord>;

  constructor(parts: RecordParts) {
    this.records = parts.records.edit();
    this.byNode = parts.byNode.edit();
    this.namespaces = new TallyDraft(parts.namespaces);
    this.workloads = new TallyDraft(parts.workloads);
    this.sorted = parts.sorted.edit();
  }

  put(record: AllocationRecord): void {
    const before = this.records.get(record.id);
    if (before !== undefined && before.node !== record.node) this.remove(record.id);
    const previous = this.records.get(record.id);
    this.records.set(record.id, record);
    if (previous === undefined) {
      this.count(record, 1);
      this.sorted.insert(sortKey(record), record);
    } else {
      if (previous.namespace !== record.namespace || previous.workload !== record.workload) {
        this.count(previous, -1);
        this.count(record, 1);
      }
      this.sorted.replace(sortKey(record), record);
    }
    const held = this.byNode.get(record.node) ?? [];
    const index = held.findIndex((other) => other.id === record.id);
    const next = held.slice();
    next.splice(index < 0 ? next.length : index, index < 0 ? 0 : 1, record);
    this.byNode.set(record.node, next);
  }

  remove(id: string): void {
    const record = this.records.get(id);
    if (record === undefined) return;
    this.records.delete(id);
    this.count(record, -1);
    this.sorted.remove(sortKey(record));
    const held = (this.byNode.get(record.node) ?? []).filter((other) => other.id !== id);
    if (held.length === 0) this.byNode.delete(record.node);
    else this.byNode.set(record.node, held);
  }

  private count(record: AllocationRecord, delta: 1 | -1): void {
    this.namespaces.bump(record.namespace, delta);
    this.workloads.bump(record.workload, delta);
  }

  done(): RecordParts {
    return {
      records: this.records.done(),
      byNode: this.byNode.done(),
      sorted: this.sorted.done(),
      namespaces: this.namespaces.done(),
      workloads: this.workloads.done(),
    };
  }
}
