/**
 * What a phase of `web/dashboard.ts` runs beside the churn: a Prometheus-like scraper of
 * `/metrics`, or `allocations.watch` subscribers in a child process.
 */
import { median, percentile } from '../lib/report.js';
import { allocationMessageKind, startSseClients } from '../lib/sse-clients.js';
import { ms } from './_dashboard-report.js';

/** What a phase runs beside the churn, and its own figures once the phase is over. */
export interface PhaseLoad {
  report(): Promise<string>;
}

/**
 * A Prometheus-like scraper: GET `/metrics` every `everyMs` (from the end of one scrape to the
 * start of the next, as Prometheus never overlaps its own scrapes), the answer read and dropped.
 */
export function startScraper(url: string, everyMs: number): PhaseLoad {
  const times: number[] = [];
  let bytes = 0;
  let failed = 0;
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const response = await fetch(url);
        bytes = (await response.arrayBuffer()).byteLength;
        times.push(performance.now() - started);
      } catch {
        failed++;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async report() {
      stopped = true;
      await running;
      return `scrapes: ${times.length} (${failed} failed), ${(bytes / 2 ** 20).toFixed(1)} MiB each, median ${ms(median(times))} ms, p95 ${ms(percentile(times, 95))} ms, max ${ms(Math.max(0, ...times))} ms`;
    },
  };
}

/**
 * `count` allocations.watch subscribers in a child process (bench/bff/_sse-clients.ts). They
 * resume from the feed's current id (Last-Event-ID, as a dashboard reconnects) rather than each
 * pulling the whole cluster's snapshot, which at 10,000 nodes is megabytes a subscriber: the
 * figure is the live fan-out under the churn. One snapshot is read here for that id.
 */
export async function startSubscribers(bffUrl: string, count: number): Promise<PhaseLoad> {
  const watchUrl = (input: object) =>
    `${bffUrl}/trpc/allocations.watch?input=${encodeURIComponent(JSON.stringify(input))}`;
  const abort = new AbortController();
  const snapshotStarted = performance.now();
  const response = await fetch(watchUrl({}), {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let snapshotBytes = 0;
  let parts = 0;
  let id: string | undefined;
  const reader = response.body?.getReader();
  // Up to the snapshot's end: only its last part's id resumes.
  while (reader && id === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    snapshotBytes += value.byteLength;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const kind = allocationMessageKind(message);
      if (kind === 'snapshot-part' || kind === 'snapshot') parts++;
      if (kind === 'snapshot') id = /^id: (\S+)$/m.exec(message)?.[1];
    }
  }
  const snapshotMs = performance.now() - snapshotStarted;
  abort.abort();
  if (!id) throw new Error('allocations.watch sent no tracked snapshot');
  const clients = startSseClients(watchUrl({ lastEventId: id }), count);
  const connectStarted = performance.now();
  const joined = JSON.parse(await clients.nextLine()) as {
    connected: number;
    failed: number;
    wholeSnapshots: number;
  };
  const connectMs = performance.now() - connectStarted;
  // The replay since that id carries the stamps of changes made before the subscribers joined.
  clients.child.stdin.write('reset\n');
  return {
    async report() {
      clients.child.stdin.write('report\n');
      const latency = JSON.parse(await clients.nextLine()) as {
        delivered: number;
        median: number;
        p95: number;
        p99: number;
        max: number;
        cut: number;
        errors: Record<string, number>;
      };
      clients.child.kill();
      const lost =
        joined.failed + latency.cut > 0
          ? ` (${joined.failed} never in, ${latency.cut} cut during the phase: ${JSON.stringify(latency.errors)})`
          : '';
      return `allocations.watch: one snapshot ${(snapshotBytes / 2 ** 20).toFixed(1)} MiB in ${parts} part(s), ${ms(snapshotMs)} ms; ${joined.connected} of ${count} subscribers resumed in ${ms(connectMs / 1000)} s (${joined.wholeSnapshots} sent a whole snapshot, not the changes since the id)${lost}; BFF stamp → subscriber: median ${latency.median} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms, max ${latency.max} ms over ${latency.delivered} deliveries`;
    },
  };
}
