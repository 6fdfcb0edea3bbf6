import { SnapshotAssembly, type WorkloadSummary } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { applyWorkloadEvent } from './workload-list-model.js';

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
