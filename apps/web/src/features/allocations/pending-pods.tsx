import { type PendingPod, rejectionLine } from '@mgpu/shared';
import { skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { memo, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { formatCards, formatGiB, formatPercent } from './format.js';
import { type DashboardKey, useDashboardI18n } from './i18n/dashboard-i18n.js';

/** More pending pods than this are counted, not drawn: a list nobody reads to the end. */
const MAX_SHOWN = 50;

/**
 * The pending pods (one stream for the page, opened by the section): from `cluster.pendingWatch`, kept in the query cache under the subscription's
 * key (the result page's pattern): coming back to the dashboard shows the last list at once. The
 * BFF coalesces changes at the dashboard's summary pace (100 ms), so a burst is one redraw.
 */
function usePendingPods(): PendingPod[] | undefined {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.cluster.pendingWatch.subscriptionOptions(
    {},
    { onData: (event) => queryClient.setQueryData<PendingPod[]>(options.queryKey, event.data) },
  );
  useSubscription(options);
  return usePendingPodsCache();
}

/** The last list the subscription wrote, for parts that show it without a stream of their own. */
function usePendingPodsCache(): PendingPod[] | undefined {
  const trpc = useTRPC();
  return useQuery<PendingPod[]>({
    queryKey: trpc.cluster.pendingWatch.subscriptionOptions({}).queryKey,
    queryFn: skipToken,
    staleTime: Number.POSITIVE_INFINITY,
  }).data;
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

const PendingPodItem = memo(function PendingPodItem({
  pod,
  now,
}: {
  pod: PendingPod;
  now: number;
}) {
  const { t, lang } = useDashboardI18n();
  const seconds = Math.max(0, Math.floor((now - Date.parse(pod.since)) / 1000));
  return (
    <li
      className="alloc-pending-pod"
      data-testid="pending-pod"
      data-pod={`${pod.namespace}/${pod.pod}`}
    >
      <div className="alloc-pending-head">
        <strong>
          {pod.namespace}/{pod.pod}
        </strong>
        <span className="muted">
          {pod.workload ? (
            <Link to={`/workloads/${pod.namespace}/${pod.workload}`}>
              {t('allocations.pending.workload', { workload: pod.workload })}
            </Link>
          ) : (
            t('allocations.pending.bare')
          )}
        </span>
        <span className="muted" data-testid="pending-waited">
          {t('allocations.pending.waited', { duration: waitedText(t, seconds) })}
        </span>
      </div>
      <ul className="alloc-small muted alloc-pending-asks">
        {pod.containers.map((container) => (
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
      {pod.fitsNow ? (
        <p className="alloc-small">{t('allocations.pending.fitsNow', { pool: pod.fitsNow })}</p>
      ) : pod.rejections.length === 0 ? (
        <p className="alloc-small">
          {/* Withheld, no rejection means some node would take it; the pool is not named. */}
          {t(
            pod.nodesWithheld
              ? 'allocations.pending.fitsSomewhere'
              : 'allocations.pending.noReasons',
          )}
        </p>
      ) : (
        <>
          <p className="alloc-small">{t('allocations.pending.reasons')}</p>
          <ul className="alloc-pending-reasons" data-testid="pending-reasons">
            {pod.rejections.map((rejection) => (
              <li key={`${rejection.group}-${rejection.code}-${rejection.nodes?.[0] ?? ''}`}>
                {rejectionLine(rejection, lang)}
              </li>
            ))}
          </ul>
          {pod.largestFits?.map((fit) => (
            <p key={fit.pool} className="alloc-small" data-testid="pending-largest-fit">
              {t('allocations.pending.largestFit', {
                pool: fit.pool,
                compute: formatCards(fit.largestFit.computePercent),
                memory: formatGiB(fit.largestFit.memoryMiB),
                cards: fit.largestFit.cards,
              })}
            </p>
          ))}
        </>
      )}
    </li>
  );
});

/** The header's count: how many GPU pods wait, a link down to the list. */
export function PendingCount() {
  const { t } = useDashboardI18n();
  const pods = usePendingPodsCache();
  if (pods === undefined || pods.length === 0) return null;
  return (
    <a href="#alloc-pending-title" className="alloc-pending-count" data-testid="pending-count">
      {t('allocations.pending.count', { count: pods.length })}
    </a>
  );
}

/** Every GPU pod no node holds: how long it waited, its workload, and why, per node group. */
export function PendingPods() {
  const { t } = useDashboardI18n();
  const pods = usePendingPods();
  const now = useNow((pods?.length ?? 0) > 0);
  return (
    <section className="alloc-panel" aria-labelledby="alloc-pending-title">
      <h2 id="alloc-pending-title" className="section-title">
        {t('allocations.pending.title')}
        {pods && pods.length > 0 ? ` (${pods.length})` : ''}
      </h2>
      {pods === undefined ? (
        <p className="loading">{t('allocations.loading')}</p>
      ) : pods.length === 0 ? (
        <p className="muted">{t('allocations.pending.none')}</p>
      ) : (
        <>
          {pods.some((pod) => pod.nodesWithheld) ? (
            <p className="muted alloc-small" data-testid="pending-nodes-withheld">
              {t('allocations.pending.nodesWithheld')}
            </p>
          ) : null}
          <ul className="alloc-pending">
            {pods.slice(0, MAX_SHOWN).map((pod) => (
              <PendingPodItem key={`${pod.namespace}/${pod.pod}`} pod={pod} now={now} />
            ))}
          </ul>
          {pods.length > MAX_SHOWN ? (
            <p className="muted alloc-small">
              {t('allocations.pending.more', { count: pods.length - MAX_SHOWN })}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
