import { memo, useEffect, useState } from 'react';
import { secondsAgo } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import type { StreamState } from './use-allocation-stream.js';

/** Re-renders every second, so "N s ago" keeps counting without any new data. */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

const isDown = (stream: StreamState) =>
  stream.status === 'reconnecting' || stream.status === 'retrying';

/**
 * The freshness indicator and the manual refresh, in the page header. It reads the time of the
 * last change on its own one-second tick, so the 60 renders a second of a busy stream skip it.
 */
export const StreamFreshness = memo(function StreamFreshness({
  stream,
  lastChangeAt,
  onRefresh,
}: {
  stream: StreamState;
  lastChangeAt(): number | null;
  onRefresh(): void;
}) {
  const { t } = useDashboardI18n();
  const now = useNow();
  const changed = secondsAgo(lastChangeAt(), now);
  const text =
    stream.status === 'connecting'
      ? t('allocations.stream.connecting')
      : stream.status === 'live'
        ? changed === null
          ? t('allocations.stream.live')
          : t('allocations.stream.liveChanged', { seconds: changed })
        : t('allocations.stream.down', { seconds: changed ?? 0 });
  return (
    <div className="alloc-freshness">
      <span
        role="status"
        data-testid="stream-status"
        data-status={stream.status}
        className={`alloc-dot alloc-dot-${isDown(stream) ? 'down' : stream.status}`}
      >
        {text}
      </span>
      <button type="button" className="alloc-button" onClick={onRefresh}>
        {t('allocations.refresh')}
      </button>
    </div>
  );
});

/** The banner while the stream is down: what is shown is no longer live; it says it retries. */
export function StreamBanner({ stream }: { stream: StreamState }) {
  const { t } = useDashboardI18n();
  const now = useNow();
  if (!isDown(stream)) return null;
  return (
    <div className="alloc-banner" role="alert" data-testid="stream-banner">
      <strong>{t('allocations.banner.title')}</strong>{' '}
      {t('allocations.banner.body', { seconds: secondsAgo(stream.since, now) ?? 0 })}
      {stream.error ? <span className="muted"> ({stream.error})</span> : null}
    </div>
  );
}
