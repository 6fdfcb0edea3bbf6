import type { PendingGroup } from '@mgpu/shared';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { memo, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { RejectionList } from '../create-workload/rejection-list.js';
import { AllocPanel } from './alloc-panel.js';
import { formatCards, formatGiB, formatPercent } from './format.js';
import { type DashboardKey, useDashboardI18n } from './i18n/dashboard-i18n.js';
import {
  applyPendingEvent,
  initialPendingGroups,
  type PendingGroupsState,
  pendingPodCount,
} from './pending-model.js';

/** More groups than this are counted, not drawn: a list nobody reads to the end. */
const MAX_SHOWN = 50;
/** Pod names a "show more" adds to a group. */
const POD_PAGE = 100;

/**
 * The subscription's key as a plain array: tRPC's key carries the type of one event, and the
 * cache entry under it holds the reducer's state instead.
 */
const pendingKey = (key: readonly unknown[]): unknown[] => [...key];

/**
 * The pending groups (one stream for the page, opened by the section): `cluster.pendingWatch`'s
 * snapshot and per-group changes (issue 25: one entry per request shape, not per pod), applied
 * by `applyPendingEvent` and kept in the query cache under the subscription's key (the result
 * page's pattern): coming back to the dashboard shows the last groups at once. The BFF coalesces
 * changes at the dashboard's summary pace (100 ms), so a burst is one redraw.
 */
function usePendingGroups(): readonly PendingGroup[] | undefined {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.cluster.pendingWatch.subscriptionOptions(
    {},
    {
      onData: (event) =>
        queryClient.setQueryData<PendingGroupsState>(pendingKey(options.queryKey), (state) =>
          applyPendingEvent(state ?? initialPendingGroups(), event.data),
        ),
    },
  );
  useSubscription(options);
  return usePendingGroupsCache();
}

/** The groups the subscription built, for parts that show them without a stream of their own. */
function usePendingGroupsCache(): readonly PendingGroup[] | undefined {
  const trpc = useTRPC();
  return useQuery<PendingGroupsState>({
    queryKey: pendingKey(trpc.cluster.pendingWatch.subscriptionOptions({}).queryKey),
    queryFn: skipToken,
    staleTime: Number.POSITIVE_INFINITY,
  }).data?.groups;
}

/** Seconds since `since`, ticking once a second while something waits. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

type Translate = (key: DashboardKey, params?: Record<string, string | number>) => string;

export function waitedText(t: Translate, seconds: number): string {
  if (seconds < 60) return t('allocations.pending.seconds', { seconds });
  if (seconds < 3600)
    return t('allocations.pending.minutes', {
      minutes: Math.floor(seconds / 60),
      seconds: seconds % 60,
    });
  return t('allocations.pending.hours', {
    hours: Math.floor(seconds / 3600),
    minutes: Math.floor((seconds % 3600) / 60),
  });
}

/**
 * The most that still fits per card on the pod's own card count, worded for one card apart
 * ("per card on 1 cards" misread as English).
 */
export function fitOnCardsText(
  t: Translate,
  pool: string,
  onCards: { cards: number; computePercent: number; memoryMiB: number },
): string {
  const params = { pool, compute: onCards.computePercent, memory: formatGiB(onCards.memoryMiB) };
  return onCards.cards === 1
    ? t('allocations.pending.fitOnOneCard', params)
    : t('allocations.pending.fitOnCards', { ...params, cards: onCards.cards });
}

/**
 * A group's waiting pods: the first ones the stream lists, and on "show more" the next ones
 * from `cluster.pendingGroups` (asked again whenever the stream says the group changed).
 */
function useGroupPods(group: PendingGroup) {
  const trpc = useTRPC();
  const [wanted, setWanted] = useState(group.pods.length);
  const extended = wanted > group.pods.length;
  const more = useQuery({
    ...trpc.cluster.pendingGroups.queryOptions({
      namespace: group.namespace,
      key: group.key,
      podLimit: wanted,
    }),
    enabled: extended,
  });
  const { refetch } = more;
  useEffect(() => {
    // A new group object from the stream: pods joined or left.
    if (extended && group) void refetch();
  }, [extended, group, refetch]);
  const pods = extended ? (more.data?.groups[0]?.pods ?? group.pods) : group.pods;
  return { pods, showMore: () => setWanted(pods.length + POD_PAGE) };
}

const PendingGroupItem = memo(function PendingGroupItem({
  group,
  now,
}: {
  group: PendingGroup;
  now: number;
}) {
  const { t } = useDashboardI18n();
  const { pods, showMore } = useGroupPods(group);
  const seconds = Math.max(0, Math.floor((now - Date.parse(group.since)) / 1000));
  const hidden = group.podCount - pods.length;
  return (
    <li className="alloc-pending-pod" data-testid="pending-group" data-group={group.key}>
      <div className="alloc-pending-head">
        <strong>
          {group.workload ? (
            <Link to={`/workloads/${group.namespace}/${group.workload}`}>
              {t('allocations.pending.workload', { workload: group.workload })}
            </Link>
          ) : (
            t('allocations.pending.bare')
          )}
        </strong>
        <span className="muted">{group.namespace}</span>
        <span data-testid="pending-group-count">
          {t('allocations.pending.groupPods', { count: group.podCount })}
        </span>
        <span className="muted" data-testid="pending-waited">
          {t('allocations.pending.waited', { duration: waitedText(t, seconds) })}
        </span>
      </div>
      <ul className="alloc-small muted alloc-pending-asks">
        {group.containers.map((container) => (
          <li key={container.name}>
            {container.perCard.memoryMiB === null
              ? t('allocations.pending.asksWhole', {
                  container: container.name,
                  cards: container.cards,
                })
              : t('allocations.pending.asks', {
                  container: container.name,
                  cards: container.cards,
                  compute: formatPercent(container.perCard.computePercent),
                  memory: formatGiB(container.perCard.memoryMiB),
                })}
          </li>
        ))}
      </ul>
      {group.fitsNow ? (
        <p className="alloc-small">{t('allocations.pending.fitsNow', { pool: group.fitsNow })}</p>
      ) : group.rejections.length === 0 ? (
        <p className="alloc-small">
          {/* Withheld, no rejection means some node would take it; the pool is not named. */}
          {t(
            group.nodesWithheld
              ? 'allocations.pending.fitsSomewhere'
              : 'allocations.pending.noReasons',
          )}
        </p>
      ) : (
        <>
          <p className="alloc-small">{t('allocations.pending.reasons')}</p>
          <div className="alloc-pending-reasons">
            <RejectionList
              // Ranked as the preview ranks them: the groups the pod's own choices (model,
              // policy, resource type, affinity) rule out fold into one line (issue 27).
              rejections={group.rejections}
              listTestId="pending-reasons"
              itemTestId="pending-reason"
            />
          </div>
          {group.largestFits?.map((fit) => (
            <p key={fit.pool} className="alloc-small" data-testid="pending-largest-fit">
              {/* Per the pod's own card count: "at most 1.6 cards, up to 8 cards" misread a 2-card pod. */}
              {fit.onCards
                ? fitOnCardsText(t, fit.pool, fit.onCards)
                : t('allocations.pending.largestFit', {
                    pool: fit.pool,
                    compute: formatCards(fit.largestFit.computePercent),
                    memory: formatGiB(fit.largestFit.memoryMiB),
                    cards: fit.largestFit.cards,
                  })}
            </p>
          ))}
        </>
      )}
      <p className="alloc-small">{t('allocations.pending.podsTitle')}</p>
      <ul className="alloc-small alloc-pending-pods" data-testid="pending-group-pods">
        {pods.map((pod) => (
          <li key={pod.pod} data-testid="pending-pod" data-pod={`${group.namespace}/${pod.pod}`}>
            {pod.pod}
          </li>
        ))}
      </ul>
      {hidden > 0 ? (
        <button
          type="button"
          className="alloc-pending-show-more"
          data-testid="pending-show-more"
          onClick={showMore}
        >
          {t('allocations.pending.showMore', { count: Math.min(POD_PAGE, hidden), hidden })}
        </button>
      ) : null}
    </li>
  );
});

/** The header's count: how many GPU pods wait, a link down to the list. */
export function PendingCount() {
  const { t } = useDashboardI18n();
  const groups = usePendingGroupsCache();
  const count = groups === undefined ? 0 : pendingPodCount(groups);
  if (count === 0) return null;
  return (
    <a href="#alloc-pending-title" className="alloc-pending-count" data-testid="pending-count">
      {t('allocations.pending.count', { count })}
    </a>
  );
}

/**
 * Every GPU pod no node holds, one entry per workload and request shape: how long its oldest
 * waited, why no node takes it (once per node group), and its waiting pods by name.
 */
export function PendingPods() {
  const { t } = useDashboardI18n();
  const groups = usePendingGroups();
  const count = groups === undefined ? 0 : pendingPodCount(groups);
  const now = useNow(count > 0);
  return (
    <AllocPanel
      id="alloc-pending-title"
      title={`${t('allocations.pending.title')}${count > 0 ? ` (${count})` : ''}`}
    >
      {groups === undefined ? (
        <p className="loading">{t('allocations.loading')}</p>
      ) : groups.length === 0 ? (
        <p className="muted">{t('allocations.pending.none')}</p>
      ) : (
        <>
          {groups.some((group) => group.nodesWithheld) ? (
            <p className="muted alloc-small" data-testid="pending-nodes-withheld">
              {t('allocations.pending.nodesWithheld')}
            </p>
          ) : null}
          <ul className="alloc-pending">
            {groups.slice(0, MAX_SHOWN).map((group) => (
              <PendingGroupItem key={group.key} group={group} now={now} />
            ))}
          </ul>
          {groups.length > MAX_SHOWN ? (
            <p className="muted alloc-small">
              {t('allocations.pending.moreGroups', { count: groups.length - MAX_SHOWN })}
            </p>
          ) : null}
        </>
      )}
    </AllocPanel>
  );
}
