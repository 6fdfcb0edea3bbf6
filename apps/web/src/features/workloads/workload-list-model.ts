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

export type AgeUnit = 'seconds' | 'minutes' | 'hours' | 'days';

/** How long a workload has existed, in its largest whole unit, as kubectl's AGE column reads. */
export function ageOf(
  createdAt: string | null,
  now: number,
): { unit: AgeUnit; count: number } | undefined {
  const created = createdAt ? Date.parse(createdAt) : Number.NaN;
  if (Number.isNaN(created)) return undefined;
  const seconds = Math.max(0, Math.floor((now - created) / 1000));
  if (seconds < 60) return { unit: 'seconds', count: seconds };
  if (seconds < 3600) return { unit: 'minutes', count: Math.floor(seconds / 60) };
  if (seconds < 86_400) return { unit: 'hours', count: Math.floor(seconds / 3600) };
  return { unit: 'days', count: Math.floor(seconds / 86_400) };
}

/** One line of the shares column: the template's (`revision` null) or one revision's pods. */
export interface ShareRow {
  revision: 'current' | 'old' | null;
  /** Which old group, from 1, when there are several (they would read the same otherwise). */
  oldNumber?: number;
  pods: number;
  ready: number;
  containers: WorkloadSummary['containers'];
}

/** What the shares column compares: the container, its cards and its per-card share. */
const sharesKey = (containers: WorkloadSummary['containers']) =>
  JSON.stringify(containers.map((share) => [share.name, share.cards, share.perCard]));

/**
 * The shares column's lines. While every live pod runs the template, one line: the template's
 * shares. Once pods differ (a rollout), one line per revision with its pod count — never one
 * share for pods that run with different ones — the current template's first, even before it
 * has a pod.
 */
export function shareRows(item: WorkloadSummary): ShareRow[] {
  const revisions = item.revisions ?? [];
  const template: ShareRow = {
    revision: null,
    pods: item.replicas,
    ready: item.readyReplicas,
    containers: item.containers,
  };
  const [only] = revisions;
  if (
    revisions.length === 0 ||
    (revisions.length === 1 &&
      only?.current === true &&
      sharesKey(only.containers) === sharesKey(item.containers))
  )
    return [template];
  const olds = revisions.filter((revision) => !revision.current).length;
  let old = 0;
  const rows: ShareRow[] = revisions.map((revision) => ({
    revision: revision.current ? 'current' : 'old',
    ...(!revision.current && olds > 1 ? { oldNumber: ++old } : {}),
    pods: revision.pods,
    ready: revision.ready,
    containers: revision.containers,
  }));
  if (!revisions.some((revision) => revision.current))
    rows.unshift({ ...template, revision: 'current', pods: 0, ready: 0 });
  return rows;
}

/** Replicas wanted but not ready, for the short badge: none for a Job that completed (its pods end). */
export function missingReplicas(item: WorkloadSummary): number {
  if (item.state?.state === 'complete') return 0;
  return Math.max(0, item.replicas - item.readyReplicas);
}

/**
 * The cards a delete frees, as far as the list knows: each pod a node took holds its containers'
 * cards (a Pending pod holds none). Undefined when the summary has no pods to count (an older
 * BFF): then the confirmation says it does not know rather than "0". The result page counts the
 * distinct cards of the allocation records instead, which the list does not carry.
 */
export function cardsHeldOf(item: WorkloadSummary): number | undefined {
  if (item.revisions === undefined) return undefined;
  return item.revisions.reduce(
    (sum, revision) =>
      sum + revision.scheduled * revision.containers.reduce((n, share) => n + share.cards, 0),
    0,
  );
}
