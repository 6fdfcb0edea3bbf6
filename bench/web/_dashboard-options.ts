/** The flags of `web/dashboard.ts` (see its head for what they do) and the figures read from them. */
import { parseArgs } from 'node:util';

export const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: process.env.MGPU_BENCH_MINUTES ?? '1' },
    rate: { type: 'string', default: '100' },
    nodes: { type: 'string', default: '1000' },
    prefill: { type: 'string', default: '3000' },
    /** Writes a CPU profile of the page's first 10 s of churn (Chrome DevTools format). */
    profile: { type: 'string' },
    /** Writes a Chromium performance trace of the first 10 s of churn (open in DevTools). */
    trace: { type: 'string' },
    /**
     * The phase whose first 10 s `--trace`/`--profile` record (`churn` by default; or `scraper`,
     * `subscribers`, `usage`), or `load`: the dashboard's first load, from navigation to live.
     */
    'record-in': { type: 'string', default: 'churn' },
    /**
     * A phase with a Prometheus-like scraper reading `/metrics` every this many seconds beside
     * the churn (issue 18: no effect on the frame p95); 15 s as Prometheus' default, 0: none.
     */
    scraper: { type: 'string', default: '15' },
    /** Adds a phase with this many `allocations.watch` subscribers beside the page (issue 20). */
    subscribers: { type: 'string' },
    /**
     * `on` (default): a last phase with the page on a second console that reads GPU usage from a
     * Prometheus scraping the cluster's exporter (issue 28); `off`: none. Both phases open the
     * same node's view, so the page shows its cards' used figures and the team table.
     */
    usage: { type: 'string', default: 'on' },
  },
  allowPositionals: true,
});
export const MINUTES = Number(values.minutes);
export const RATE = Number(values.rate);
export const NODES = Number(values.nodes);
export const PREFILL = Number(values.prefill);
export const SCRAPE_EVERY_S = Number(values.scraper) === 0 ? undefined : Number(values.scraper);
export const SUBSCRIBERS =
  values.subscribers === undefined ? undefined : Number(values.subscribers);
if (values.usage !== 'on' && values.usage !== 'off') throw new Error('--usage: on or off');
export const USAGE_PHASE = values.usage === 'on';
export const USAGE_LABEL = 'churn + usage on (Prometheus)';
export const CARDS = 8;
export const NAMESPACE = 'churn';
export const PAINTED_EVENT = 'mgpu:allocations-painted';
/** Requests in flight at most; a change that would exceed it is counted as missed, not queued. */
export const MAX_IN_FLIGHT = 64;

for (const [name, value] of Object.entries({
  MINUTES,
  RATE,
  NODES,
  PREFILL,
  SCRAPER: SCRAPE_EVERY_S ?? 1,
  SUBSCRIBERS: SUBSCRIBERS ?? 1,
}))
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()}: not a number`);

/** The phase names `--record-in` takes, by the label's first words. */
export const RECORD_IN = (() => {
  const wanted = values['record-in'];
  if (wanted === 'scraper') return `churn + /metrics every ${SCRAPE_EVERY_S} s`;
  if (wanted === 'subscribers') return `churn + ${SUBSCRIBERS} allocations.watch subscribers`;
  if (wanted === 'usage') return USAGE_LABEL;
  // `load` is recorded apart, around the first load; no phase is then.
  return wanted === 'load' ? undefined : 'churn';
})();
