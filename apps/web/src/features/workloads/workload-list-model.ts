import type { SnapshotAssembly, WorkloadListEvent, WorkloadSummary } from '@mgpu/shared';

const keyOf = (workload: WorkloadSummary) =>
  `${workload.kind}/${workload.namespace}/${workload.name}`;

/** Newest first, as `workload.list` orders them. */
const newestFirst = (a: WorkloadSummary, b: WorkloadSummary) =>
  (b.createdAt ?? '').localeCompare(a.createdAt ?? '');

/**
 * The list after one `workload.watch` event: a snapshot replaces it (a large one once its last
 * part is in: `snapshotParts` collects them, the list stays as it is until then), an upsert adds
 * or replaces workloads by kind, namespace and name, a delete removes them.
 */
export function applyWorkloadEvent(
  list: WorkloadSummary[] | undefined,
  event: WorkloadListEvent,
  snapshotParts: SnapshotAssembly<WorkloadSummary>,
): WorkloadSummary[] | undefined {
  if (event.type === 'snapshot') {
    const whole = snapshotParts.add(event, event.workloads);
    return whole === undefined ? list : [...whole];
  }
  const held = new Map((list ?? []).map((workload) => [keyOf(workload), workload]));
  for (const workload of event.workloads) {
    if (event.type === 'delete') held.delete(keyOf(workload));
    else held.set(keyOf(workload), workload);
  }
  return [...held.values()].sort(newestFirst);
}
