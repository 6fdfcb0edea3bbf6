import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type CardPolicy,
  comparePendingGroups,
  comparePendingPods,
  isPendingGpuPod,
  type NodeState,
  type PendingGroup,
  PendingGroupSchema,
  type PendingMember,
  type PendingVerdict,
  type PoolSummary,
  pendingGroupOf,
  pendingMemberOf,
  pendingVerdictOf,
  placePending,
} from '@mgpu/shared';
import type { ClusterClient } from '../cluster/cluster-client.js';

/** What the view reads: the console's informers and the node states and pools built from them. */
export interface PendingSource {
  readonly cluster: Pick<ClusterClient, 'pods' | 'nodes' | 'unscheduledPods'>;
  readonly cardPolicy: CardPolicy;
  readonly modelLabel: string;
  nodeStates(): readonly NodeState[];
  pools(): PoolSummary[];
}

/** The pending pods at one moment: groups by shape, oldest first, each listing all its pods. */
export interface PendingState {
  readonly groups: readonly PendingGroup[];
  readonly podCount: number;
}

const NOTHING_PENDING: PendingState = { groups: [], podCount: 0 };

interface KnownVerdict {
  verdict: PendingVerdict;
  json: string;
  /** The node states it was reached on: the same array means the same verdict. */
  states: readonly NodeState[];
}

/**
 * The console's one view of the GPU pods no node holds yet (`cluster.pending`, `pendingGroups`,
 * `pendingWatch`, `mgpu_pending_pods`, the pool history), built once for every caller and every
 * operator — operators get cuts of it (issue 25: 1,491 pods of one workload made each call redo
 * the whole list, 0.16–0.6 s of CPU, per operator, and 20 calls held `/healthz` for 8.5 s).
 *
 * Kept up to date change by change: a pod is read into its group once per object the informer
 * holds; the placement runs once per shape, again only when the node states changed; a group
 * whose pods and verdict stayed is the same object (so a watch sends only changed groups). One
 * computation is in flight at a time, shared by every caller, and it yields to the event loop
 * between shapes, so health checks and other requests answer while it runs.
 */
export class PendingPodsView {
  private state: PendingState = NOTHING_PENDING;
  /** An informer event since the last computation began that may change the answer. */
  private dirty = true;
  private inFlight: Promise<PendingState> | undefined;
  private watching = false;
  private readonly listeners = new Set<() => void>();
  /** Per pod object of the informer (replaced on every update): its group and shape. */
  private readonly members = new WeakMap<object, PendingMember>();
  /** Per shape signature: its verdict on the node states it was reached on. */
  private verdicts = new Map<string, KnownVerdict>();
  private readonly verdictOfGroup = new WeakMap<PendingGroup, PendingVerdict>();

  /** `source`: the console's own views (`ClusterViews`), never an operator's. */
  constructor(private readonly source: PendingSource) {}

  /** The last computed state, without waiting (starts a computation if one is due). */
  latest(): PendingState {
    void this.current().catch(() => undefined);
    return this.state;
  }

  /**
   * The current state: at once when nothing changed since the last computation; else the
   * computation in flight, which every caller shares — or, when a change came after it began,
   * the one after it (started then, or joined if another caller started it), so an answer is
   * never of a state older than the call. At most one more: under endless churn no caller waits
   * on computation after computation.
   */
  current(): Promise<PendingState> {
    this.watch();
    const running = this.inFlight;
    if (running === undefined) return this.next();
    if (!this.dirty) return running;
    const after = () => this.next();
    return running.then(after, after);
  }

  /** The computation in flight, else a new one when a change is unseen, else the last state. */
  private next(): Promise<PendingState> {
    if (this.inFlight !== undefined) return this.inFlight;
    if (!this.dirty) return Promise.resolve(this.state);
    const computation = this.compute().finally(() => {
      if (this.inFlight === computation) this.inFlight = undefined;
    });
    this.inFlight = computation;
    return computation;
  }

  /** Calls `listener` when the state may have changed (read `current()` to see). */
  onChange(listener: () => void): () => void {
    this.watch();
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.dirty = true;
    for (const listener of this.listeners) listener();
  }

  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    const { pods, nodes } = this.source.cluster;
    // Lives as long as the console's informers: the view is made once per process.
    pods.subscribe((event) => {
      // A pod joins or leaves the list; while any waits (or a computation runs), any pod's
      // change — one freeing or taking cards — may change a verdict.
      if (
        event.type === 'resync' ||
        this.state.podCount > 0 ||
        this.inFlight !== undefined ||
        isPendingGpuPod(event.object)
      )
        this.changed();
    });
    nodes.subscribe(() => {
      if (this.state.podCount > 0 || this.inFlight !== undefined) this.changed();
    });
  }

  private async compute(): Promise<PendingState> {
    this.dirty = false;
    try {
      this.state = await this.build();
      return this.state;
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }

  private async build(): Promise<PendingState> {
    const { source } = this;
    const options = { cardPolicy: source.cardPolicy, modelLabel: source.modelLabel };
    // From the index, not the whole cache: the few pods that wait among thousands.
    const byGroup = new Map<string, PendingMember[]>();
    for (const pod of source.cluster.unscheduledPods()) {
      if (!isPendingGpuPod(pod)) continue;
      let member = this.members.get(pod);
      if (member === undefined) {
        member = pendingMemberOf(pod, options);
        this.members.set(pod, member);
      }
      const members = byGroup.get(member.groupKey);
      if (members === undefined) byGroup.set(member.groupKey, [member]);
      else members.push(member);
    }
    // With no pending pod — the usual case — not even the node states are built.
    if (byGroup.size === 0) {
      this.verdicts.clear();
      return NOTHING_PENDING;
    }
    const states = source.nodeStates();
    const pools = source.pools();
    const before = new Map(this.state.groups.map((group) => [group.key, group]));
    const verdicts = new Map<string, KnownVerdict>();
    const groups: PendingGroup[] = [];
    let podCount = 0;
    for (const [key, members] of byGroup) {
      members.sort(comparePendingPods);
      const first = members[0] as PendingMember;
      let known = verdicts.get(first.signature) ?? this.verdicts.get(first.signature);
      if (known === undefined || known.states !== states) {
        const verdict = pendingVerdictOf(
          first.demand,
          placePending(first.demand, states, options),
          states,
          pools,
        );
        const json = JSON.stringify(verdict);
        // The same verdict on changed nodes stays the same object: its groups stay unchanged.
        known = { verdict: known?.json === json ? known.verdict : verdict, json, states };
        // One placement walks every node: let waiting requests in before the next shape.
        await yieldToEventLoop();
      }
      verdicts.set(first.signature, known);
      groups.push(this.groupOf(key, members, known.verdict, before.get(key)));
      podCount += members.length;
    }
    this.verdicts = verdicts;
    return { groups: groups.sort(comparePendingGroups), podCount };
  }

  /** The group as it was when neither its pods nor its verdict changed, else a new one. */
  private groupOf(
    key: string,
    members: readonly PendingMember[],
    verdict: PendingVerdict,
    before: PendingGroup | undefined,
  ): PendingGroup {
    if (
      before !== undefined &&
      this.verdictOfGroup.get(before) === verdict &&
      before.pods.length === members.length &&
      before.pods.every(
        (pod, index) => pod.pod === members[index]?.pod && pod.since === members[index]?.since,
      )
    )
      return before;
    // Validated once as it is made: every answer built from it is then valid by construction.
    const group = PendingGroupSchema.parse(pendingGroupOf(key, members, verdict));
    this.verdictOfGroup.set(group, verdict);
    return group;
  }
}
