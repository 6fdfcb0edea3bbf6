import type { WorkloadSummary } from '@mgpu/shared';
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
    const older = workload('older', '2026-01-01T00:00:00.000Z');
    const newer = workload('newer', '2026-02-01T00:00:00.000Z');
    let list = applyWorkloadEvent([workload('gone', '2025-01-01T00:00:00.000Z')], {
      type: 'snapshot',
      workloads: [older],
    });
    expect(list.map((item) => item.name)).toEqual(['older']);
    list = applyWorkloadEvent(list, { type: 'upsert', workloads: [newer] });
    expect(list.map((item) => item.name)).toEqual(['newer', 'older']);
    list = applyWorkloadEvent(list, {
      type: 'upsert',
      workloads: [workload('older', '2026-01-01T00:00:00.000Z', 1)],
    });
    expect(list.find((item) => item.name === 'older')?.readyReplicas).toBe(1);
    list = applyWorkloadEvent(list, { type: 'delete', workloads: [newer] });
    expect(list.map((item) => item.name)).toEqual(['older']);
  });
});
