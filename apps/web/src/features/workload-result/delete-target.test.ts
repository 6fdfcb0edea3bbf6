import type { WorkloadProgress } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { deleteTargetOf } from './delete-workload.js';

const progress = (kind: WorkloadProgress['kind']): WorkloadProgress => ({
  namespace: 'default',
  name: 'train',
  exists: true,
  ...(kind ? { kind } : {}),
  outcome: 'in-progress',
  stages: [],
  replicas: { desired: 1, ready: 0 },
  pods: [],
  records: [],
});

describe("the result page's delete target", () => {
  it('names the workload’s real kind, and sends it, so a Job is never called a Deployment', () => {
    expect(deleteTargetOf(progress('Job')).kind).toBe('Job');
    expect(deleteTargetOf(progress('StatefulSet')).kind).toBe('StatefulSet');
  });

  it('sends no kind the console cannot delete, nor one an older BFF did not send', () => {
    expect(deleteTargetOf(progress('DaemonSet')).kind).toBeUndefined();
    expect(deleteTargetOf(progress(undefined)).kind).toBeUndefined();
  });
});
