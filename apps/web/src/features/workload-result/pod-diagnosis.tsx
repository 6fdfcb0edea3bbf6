import { POD_LOG_TAIL_DEFAULT, type PodEvent } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { Alert, Button, Collapse, Segmented, Tag } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTRPC } from '../../app/trpc.js';
import { formatDateTime } from '../../i18n/format.js';
import { type MessageKey, type Translate, useI18n } from '../../i18n/i18n.js';
import { applyLogEvent, EMPTY_LOG, type LogView } from './pod-log-view.js';

/** How often a pod's Events are read again while its panel is open. */
const EVENTS_REFRESH_MS = 5_000;

/** A pod as the result page lists it: its containers come from the progress (older BFFs: none). */
export interface DiagnosedPod {
  name: string;
  containers?: string[] | undefined;
}

/**
 * The container's log: its last lines, then each new one, scrolled to the newest. Once the
 * stream closed, `onFollowAgain` opens a new one (the parent remounts this view).
 */
function ContainerLog({
  namespace,
  pod,
  container,
  onFollowAgain,
}: {
  namespace: string;
  pod: string;
  container: string;
  onFollowAgain: () => void;
}) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const [view, setView] = useState<LogView>(EMPTY_LOG);
  const subscription = useSubscription(
    trpc.pod.logs.subscriptionOptions(
      { namespace, pod, container, tailLines: POD_LOG_TAIL_DEFAULT, lang },
      { onData: (event) => setView((current) => applyLogEvent(current, event.data)) },
    ),
  );
  const end = useRef<HTMLPreElement>(null);
  const appended = view.appended;
  useEffect(() => {
    if (appended > 0 && end.current) end.current.scrollTop = end.current.scrollHeight;
  }, [appended]);
  return (
    <div data-testid="container-log" data-container={container}>
      {subscription.error ? (
        <Alert
          type="error"
          showIcon
          title={t('result.log.error', { message: subscription.error.message })}
        />
      ) : null}
      {view.unavailable ? (
        <Alert
          type="info"
          showIcon
          data-reason={view.unavailable}
          title={t(`result.log.unavailable.${view.unavailable}`)}
        />
      ) : null}
      {view.lines.length > 0 ? (
        <pre
          ref={end}
          className="container-log"
          role="log"
          aria-label={t('result.log.label', { pod, container })}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling log is read by keyboard too
          tabIndex={0}
        >
          {view.lines.join('\n')}
        </pre>
      ) : !view.unavailable && !subscription.error ? (
        <p className="muted">{t('result.log.empty')}</p>
      ) : null}
      {view.ended ? (
        <p className="muted" data-ended={view.ended}>
          {t(`result.log.ended.${view.ended}`)}{' '}
          {view.ended === 'closed' ? (
            <Button size="small" onClick={onFollowAgain}>
              {t('result.log.followAgain')}
            </Button>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Event reasons worded in the operator's language; any other reason shows as Kubernetes wrote it.
 * `FailedScheduling` above all: a pod that waits for a node has not failed, and the page must not
 * say "Failed" of it (the workload's state says Pending). The raw reason stays in `data-reason`.
 */
const REASON_KEYS = {
  FailedScheduling: 'result.events.reason.FailedScheduling',
  Scheduled: 'result.events.reason.Scheduled',
  Started: 'result.events.reason.Started',
} satisfies Record<string, MessageKey>;

/** An Event's reason in the operator's language where it has words, else as Kubernetes wrote it. */
function reasonText(reason: string, t: Translate): string {
  return Object.hasOwn(REASON_KEYS, reason)
    ? t(REASON_KEYS[reason as keyof typeof REASON_KEYS])
    : reason;
}

function EventList({ events }: { events: PodEvent[] }) {
  const { t, lang } = useI18n();
  if (events.length === 0) return <p className="muted">{t('result.events.none')}</p>;
  // A list, not a table: the per-card table stays the page's only table rows.
  return (
    <ol className="pod-events" aria-label={t('result.events.title')}>
      {events.map((event) => (
        <li key={`${event.reason}-${event.firstTime}-${event.message}`} data-reason={event.reason}>
          <Tag color={event.type === 'Warning' ? 'orange' : 'default'} data-type={event.type}>
            {event.type === 'Warning' || event.type === 'Normal'
              ? t(`result.events.type.${event.type}`)
              : event.type}
          </Tag>
          <strong>{reasonText(event.reason, t)}</strong> {event.message}{' '}
          <span className="muted">
            {t('result.events.meta', {
              count: event.count,
              time: event.lastTime ? formatDateTime(lang, event.lastTime) : '—',
              source: event.source ?? '—',
            })}
          </span>
        </li>
      ))}
    </ol>
  );
}

/**
 * One pod: its Events, newest first, and the log of the container the operator picks. The
 * containers are the pod's own (from the progress), so Events that fail to load hide no log.
 */
function PodPanel({ namespace, pod }: { namespace: string; pod: DiagnosedPod }) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const events = useQuery({
    ...trpc.pod.events.queryOptions({ namespace, pod: pod.name, lang }),
    refetchInterval: EVENTS_REFRESH_MS,
  });
  const containers = pod.containers ?? events.data?.containers ?? [];
  const [picked, setPicked] = useState<string | undefined>();
  // Each "follow again" is a new stream: the log view starts over from the tail.
  const [follows, setFollows] = useState(0);
  const container = picked !== undefined && containers.includes(picked) ? picked : containers[0];
  return (
    <div data-testid="pod-diagnosis" data-pod={pod.name}>
      <h3 className="subsection-title">{t('result.events.title')}</h3>
      {events.error ? (
        <Alert
          type="error"
          showIcon
          title={t('result.events.error', { message: events.error.message })}
        />
      ) : events.data ? (
        <EventList events={events.data.events} />
      ) : (
        <p className="muted">{t('result.connecting')}</p>
      )}
      <h3 className="subsection-title">{t('result.log.title')}</h3>
      {containers.length > 1 ? (
        <Segmented
          aria-label={t('result.log.container')}
          options={containers}
          value={container}
          onChange={(value) => setPicked(String(value))}
        />
      ) : null}
      {container ? (
        <ContainerLog
          key={`${container}/${follows}`}
          namespace={namespace}
          pod={pod.name}
          container={container}
          onFollowAgain={() => setFollows((count) => count + 1)}
        />
      ) : null}
    </div>
  );
}

/**
 * Diagnosis on the result page (issue 27): per pod, its Events and its container's log, read as
 * the operator. Only the open panel reads (the first opens by itself), one at a time: a closed
 * one ends its stream, and a browser allows only six connections to the console at once.
 */
export function PodDiagnosis({ namespace, pods }: { namespace: string; pods: DiagnosedPod[] }) {
  const { t } = useI18n();
  // The one open pod: undefined until the operator chooses (then the first), null once closed.
  // An accordion by hand: antd's `accordion` draws a tablist holding tabpanels, which screen
  // readers (and axe) refuse.
  const [chosen, setChosen] = useState<string | null>();
  if (pods.length === 0) return null;
  const open = chosen === undefined ? pods[0]?.name : chosen;
  return (
    <section className="pod-diagnosis" aria-labelledby="diagnosis-title">
      <h2 id="diagnosis-title" className="section-title">
        {t('result.diagnosis.title')}
      </h2>
      <Collapse
        activeKey={open ? [open] : []}
        // Opening a pod closes the other: its stream ends before the next one starts.
        onChange={(keys) => {
          const active = Array.isArray(keys) ? keys : [keys];
          setChosen(active.find((key) => key !== open) ?? null);
        }}
        destroyOnHidden
        items={pods.map((pod) => ({
          key: pod.name,
          label: t('result.diagnosis.pod', { pod: pod.name }),
          children: <PodPanel namespace={namespace} pod={pod} />,
        }))}
      />
    </section>
  );
}
