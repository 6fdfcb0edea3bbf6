import { isCreatableKind, type WorkloadSummary } from '@mgpu/shared';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Tag } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { FigureText, sentenceWithFigures } from '../../components/figure-text.js';
import { formatDateTime } from '../../i18n/format.js';
import { useI18n } from '../../i18n/i18n.js';
import { DeleteWorkload } from '../workload-result/delete-workload.js';
import { ageOf, cardsHeldOf, missingReplicas, shareRows } from './workload-list-model.js';
import { WorkloadStateBadge } from './workload-state-badge.js';

/** The state column: the one state (`workloadState`) with its reason. */
export function StateCell({ item }: { item: WorkloadSummary }) {
  return item.state ? <WorkloadStateBadge view={item.state} /> : <span>—</span>;
}

/** Ready / wanted, with a warning badge saying how many are missing when it is short. */
export function ReplicasCell({ item }: { item: WorkloadSummary }) {
  const { t } = useI18n();
  const missing = missingReplicas(item);
  return (
    <span data-testid="replicas">
      <FigureText>{`${item.readyReplicas}/${item.replicas}`}</FigureText>
      {missing > 0 ? (
        <>
          {' '}
          <Tag color="warning" data-testid="replicas-short">
            {t('workloads.replicasShort', { missing })}
          </Tag>
        </>
      ) : null}
    </span>
  );
}

/** Now, once a minute: the age column moves on by itself between list events. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** How long the workload has existed (`createdAt`), in its largest whole unit. */
export function AgeCell({ item }: { item: WorkloadSummary }) {
  const { t, lang } = useI18n();
  const age = ageOf(item.createdAt, useMinuteClock());
  return (
    <span
      data-testid="age"
      title={item.createdAt ? formatDateTime(lang, item.createdAt) : undefined}
    >
      {age ? t(`workloads.age.${age.unit}`, { count: age.count }) : '—'}
    </span>
  );
}

/** Per-card shares: the template's, or during a rollout each revision's with its pod count. */
export function SharesCell({ item }: { item: WorkloadSummary }) {
  const { t } = useI18n();
  return shareRows(item).map((row, index) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: several old groups share a revision name; the rows come in a stable order and hold no state.
    <div key={index} data-revision={row.revision ?? 'template'}>
      {row.revision ? (
        <div className="muted">
          {row.oldNumber === undefined
            ? t(`workloads.revision.${row.revision}`, { pods: row.pods, ready: row.ready })
            : t('workloads.revision.oldNumbered', {
                n: row.oldNumber,
                pods: row.pods,
                ready: row.ready,
              })}
        </div>
      ) : null}
      {row.containers.map((share) => (
        <div key={share.index}>
          {sentenceWithFigures((figure) =>
            t('workloads.share', {
              container: share.name,
              cards: figure(String(share.cards)),
              compute: figure(String(share.perCard.computePercent)),
              memory:
                share.perCard.memoryMiB === null ? '—' : figure(`${share.perCard.memoryMiB} MiB`),
            }),
          )}
        </div>
      ))}
    </div>
  ));
}

/** Delete from the list, with the result page's own confirmation (`DeleteWorkload`). */
export function DeleteFromList({ item }: { item: WorkloadSummary }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pods = (item.revisions ?? []).reduce((sum, revision) => sum + revision.pods, 0);
  const cards = cardsHeldOf(item);
  return (
    <DeleteWorkload
      target={{
        namespace: item.namespace,
        name: item.name,
        ...(isCreatableKind(item.kind) ? { kind: item.kind } : {}),
        exists: true,
        pods,
        cards,
      }}
      onDeleted={() => void queryClient.invalidateQueries(trpc.workload.list.pathFilter())}
    />
  );
}

/**
 * The namespace choice: every namespace the operator may list (`cluster.namespaces`, cut by
 * their RBAC under `--auth`), and those of the listed workloads while it loads.
 */
export function useListNamespaces(items: readonly WorkloadSummary[]): string[] {
  const trpc = useTRPC();
  const namespaces = useQuery(trpc.cluster.namespaces.queryOptions());
  return useMemo(
    () => [...new Set([...(namespaces.data ?? []), ...items.map((item) => item.namespace)])].sort(),
    [namespaces.data, items],
  );
}
