/**
 * Child process of sse-fanout.ts, hardening.ts and web/dashboard.ts: holds N SSE subscriptions
 * to allocations.watch over plain HTTP (a light reader, so 1,000 clients on the same 2 cores
 * measure the BFF rather than themselves) and reports, per delivered change, how long after the
 * BFF stamped it (`at`), and how many subscriptions failed or were cut by the BFF.
 */
import http from 'node:http';
import { percentile } from '../lib/report.js';
import { allocationMessageKind } from '../lib/sse-clients.js';

const [url = '', countText = '1000'] = process.argv.slice(2);
const count = Number(countText);
/** Subscriptions whose first whole message arrived, and those that ended before it did. */
let connected = 0;
let neverIn = 0;
/** Subscriptions that were sent the whole snapshot rather than the changes since their id. */
let wholeSnapshots = 0;
/** Subscriptions that were in and then ended (the BFF cut them, or the connection broke). */
let cut = 0;
const errors = new Map<string, number>();
const latencies: number[] = [];
const requests: http.ClientRequest[] = [];
let reporting = false;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

function settled() {
  if (connected + neverIn === count)
    process.stdout.write(`${JSON.stringify({ connected, failed: neverIn, wholeSnapshots })}\n`);
}

for (let index = 0; index < count; index++) {
  let first = true;
  let ended = false;
  // A subscription ends once, whether by an error, the response's end or its close.
  const end = (reason: string | undefined) => {
    if (ended || reporting) return;
    ended = true;
    if (reason) errors.set(reason, (errors.get(reason) ?? 0) + 1);
    if (first) {
      neverIn++;
      settled();
    } else cut++;
  };
  const request = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
    // Messages are read as they complete; only the tail after the last `\n\n` is kept, and a
    // search starts where the previous one stopped, so a megabyte snapshot costs linear time.
    let pending = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const from = Math.max(0, pending.length - 1);
      pending += chunk;
      let start = 0;
      for (let at = pending.indexOf('\n\n', from); at >= 0; at = pending.indexOf('\n\n', start)) {
        const message = pending.slice(start, at);
        start = at + 2;
        const kind = allocationMessageKind(message);
        // Not data (connected, ping), or a snapshot's part: a snapshot counts at its end.
        if (kind === undefined || kind === 'snapshot-part') continue;
        // The first whole message (the snapshot, or the first change after a resume) says the
        // subscriber is in; a later snapshot (after a reconnect) carries no change's stamp.
        if (first) {
          first = false;
          connected++;
          if (kind === 'snapshot') wholeSnapshots++;
          settled();
          continue;
        }
        if (kind === 'snapshot') continue;
        const stamp = /"at":"([^"]+)"/.exec(message)?.[1];
        if (stamp) latencies.push(Date.now() - Date.parse(stamp));
      }
      pending = pending.slice(start);
    });
    response.on('end', () => end('ended by the BFF'));
    response.on('error', (error: NodeJS.ErrnoException) => end(error.code ?? error.message));
  });
  request.on('error', (error: NodeJS.ErrnoException) => end(error.code ?? error.message));
  request.on('close', () => end(undefined));
  requests.push(request);
}
process.stdin.on('data', (chunk) => {
  // `reset` forgets what was delivered so far (a replay after Last-Event-ID carries old stamps).
  if (chunk.toString().includes('reset')) latencies.length = 0;
  if (!chunk.toString().includes('report')) return;
  reporting = true;
  for (const request of requests) request.destroy();
  const summary = {
    delivered: latencies.length,
    median: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
    cut,
    errors: Object.fromEntries(errors),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
});
