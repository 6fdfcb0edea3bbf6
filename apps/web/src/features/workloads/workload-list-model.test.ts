import { SnapshotAssembly, type WorkloadSummary } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import {
  ageOf,
  applyWorkloadEvent,
  cardsHeldOf,
  missingReplicas,
  shareRows,
} from './workload-list-model.js';

const workload = (name: string, createdAt: string, readyReplicas = 0): WorkloadSummary => ({
  kind: 'Deployment',
  namespace: 'default',
  name,
  uid: name,
  resourceVersion: '1',
  createdAt,
  replicas: 1,
  readyReplicas,
  availableReplicas: readyReplicas,
  managedByConsole: true,
  computePolicy: null,
  containers: [],
  verification: 'unknown',
});

describe('applyWorkloadEvent: /workloads kept live from workload.watch', () => {
  it('replaces the list on a snapshot, then adds, updates and removes rows newest first', () => {
    const parts = new SnapshotAssembly<WorkloadSummary>();
    const older = workload('older', '2026-01-01T00:00:00.000Z');
    const newer = workload('newer', '2026-02-01T00:00:00.000Z');
    let list = applyWorkloadEvent(
      [workload('gone', '2025-01-01T00:00:00.000Z')],
      { type: 'snapshot', workloads: [older] },
      parts,
    );
    expect(list?.map((item) => item.name)).toEqual(['older']);
    list = applyWorkloadEvent(list, { type: 'upsert', workloads: [newer] }, parts);
    expect(list?.map((item) => item.name)).toEqual(['newer', 'older']);
    list = applyWorkloadEvent(
      list,
      { type: 'upsert', workloads: [workload('older', '2026-01-01T00:00:00.000Z', 1)] },
      parts,
    );
    expect(list?.find((item) => item.name === 'older')?.readyReplicas).toBe(1);
    list = applyWorkloadEvent(list, { type: 'delete', workloads: [newer] }, parts);
    expect(list?.map((item) => item.name)).toEqual(['older']);
  });

  it('keeps the list as it is while a snapshot in parts arrives, then replaces it whole', () => {
    const parts = new SnapshotAssembly<WorkloadSummary>();
    const shown = [workload('gone', '2025-01-01T00:00:00.000Z')];
    const first = workload('first', '2026-01-01T00:00:00.000Z');
    const second = workload('second', '2026-02-01T00:00:00.000Z');
    const partial = applyWorkloadEvent(
      shown,
      { type: 'snapshot', part: 0, more: true, workloads: [first] },
      parts,
    );
    expect(partial).toBe(shown);
    const whole = applyWorkloadEvent(
      partial,
      { type: 'snapshot', part: 1, workloads: [second] },
      parts,
    );
    expect(whole?.map((item) => item.name)).toEqual(['first', 'second']);
  });
});

describe('the list as a health view', () => {
  const share = (computePercent: number) => ({
    index: 0,
    name: 'main',
    type: 'mgpu' as const,
    multiCard: false,
    wholeCards: false,
    cards: 1,
    perCard: { computePercent, memoryMiB: 4096 },
    computePercent,
    memoryMiB: 4096,
  });

  it('shows each revision’s share mid-rollout, never the template’s for a pod that differs', () => {
    // Issue 27: "80%" was shown for a workload whose only running pod has 60 %.
    const rolling: WorkloadSummary = {
      ...workload('rolling', '2026-01-01T00:00:00.000Z', 1),
      containers: [share(80)],
      revisions: [
        { current: true, pods: 1, ready: 0, scheduled: 1, containers: [share(80)] },
        { current: false, pods: 1, ready: 1, scheduled: 1, containers: [share(60)] },
      ],
    };
    expect(
      shareRows(rolling).map((row) => [row.revision, row.pods, row.ready, row.containers[0]]),
    ).toEqual([
      ['current', 1, 0, share(80)],
      ['old', 1, 1, share(60)],
    ]);
    // Before the new revision has a pod, it is still shown, with none.
    const notStarted = { ...rolling, revisions: rolling.revisions?.slice(1) };
    expect(shareRows(notStarted).map((row) => [row.revision, row.pods])).toEqual([
      ['current', 0],
      ['old', 1],
    ]);
  });

  it('shows the template’s share once while every pod runs it', () => {
    const settled: WorkloadSummary = {
      ...workload('settled', '2026-01-01T00:00:00.000Z', 2),
      replicas: 2,
      containers: [share(80)],
      revisions: [{ current: true, pods: 2, ready: 2, scheduled: 2, containers: [share(80)] }],
    };
    expect(shareRows(settled)).toEqual([
      { revision: null, pods: 2, ready: 2, containers: [share(80)] },
    ]);
  });

  it('tells two old groups apart (numbered), and numbers none when there is one', () => {
    const twice: WorkloadSummary = {
      ...workload('twice', '2026-01-01T00:00:00.000Z', 2),
      replicas: 3,
      containers: [share(80)],
      revisions: [
        { current: true, pods: 1, ready: 0, scheduled: 1, containers: [share(80)] },
        { current: false, pods: 1, ready: 1, scheduled: 1, containers: [share(60)] },
        { current: false, pods: 1, ready: 1, scheduled: 1, containers: [share(40)] },
      ],
    };
    expect(shareRows(twice).map((row) => [row.revision, row.oldNumber])).toEqual([
      ['current', undefined],
      ['old', 1],
      ['old', 2],
    ]);
  });

  it('gives a complete Job no short badge, and a running one short of pods one', () => {
    const job: WorkloadSummary = {
      ...workload('batch', '2026-01-01T00:00:00.000Z', 0),
      kind: 'Job',
      state: { state: 'complete', reason: null, message: null, pod: null },
    };
    expect(missingReplicas(job)).toBe(0);
    const short: WorkloadSummary = {
      ...workload('short', '2026-01-01T00:00:00.000Z', 1),
      replicas: 2,
      state: { state: 'running', reason: null, message: null, pod: null },
    };
    expect(missingReplicas(short)).toBe(1);
  });

  it('counts the cards a delete frees from pods a node took only, or says it does not know', () => {
    const twoCards = { ...share(80), cards: 2 };
    const waiting: WorkloadSummary = {
      ...workload('waiting', '2026-01-01T00:00:00.000Z', 1),
      replicas: 3,
      containers: [twoCards],
      // Three pods, one of them Pending with no node: it holds no card.
      revisions: [{ current: true, pods: 3, ready: 1, scheduled: 2, containers: [twoCards] }],
    };
    expect(cardsHeldOf(waiting)).toBe(4);
    const { revisions: _none, ...older } = waiting;
    expect(cardsHeldOf(older)).toBeUndefined();
  });

  it('words the age in its largest whole unit', () => {
    const now = Date.parse('2026-01-02T03:04:05.000Z');
    expect(ageOf('2026-01-02T03:04:00.000Z', now)).toEqual({ unit: 'seconds', count: 5 });
    expect(ageOf('2026-01-02T02:54:05.000Z', now)).toEqual({ unit: 'minutes', count: 10 });
    expect(ageOf('2026-01-01T22:04:05.000Z', now)).toEqual({ unit: 'hours', count: 5 });
    expect(ageOf('2025-12-30T03:04:05.000Z', now)).toEqual({ unit: 'days', count: 3 });
    expect(ageOf(null, now)).toBeUndefined();
  });
});
