/**
 * Child process of sse-fanout.ts: holds N SSE subscriptions to allocations.watch over plain
 * HTTP (a light reader, so 1,000 clients on the same 2 cores measure the BFF rather than
 * themselves) and reports, per delivered change, how long after the BFF stamped it (`at`).
 */
import http from 'node:http';
import { percentile } from '../lib/report.js';
import { allocationMessageKind } from '../lib/sse-clients.js';

const [url = '', countText = '1000'] = process.argv.slice(2);
const count = Number(countText);
let connected = 0;
const latencies: number[] = [];
const requests: http.ClientRequest[] = [];
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
for (let index = 0; index < count; index++) {
  const request = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
    let buffer = '';
    let first = true;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const kind = allocationMessageKind(message);
        // Not data (connected, ping), or a snapshot's part: a snapshot counts at its end.
        if (kind === undefined || kind === 'snapshot-part') continue;
        // The first whole message (the snapshot, or the first change after a resume) says the
        // subscriber is in; a later snapshot (after a reconnect) carries no change's stamp.
        if (first) {
          first = false;
          connected++;
          if (connected === count) process.stdout.write(`${JSON.stringify({ connected })}\n`);
          continue;
        }
        if (kind === 'snapshot') continue;
        const at = /"at":"([^"]+)"/.exec(message)?.[1];
        if (at) latencies.push(Date.now() - Date.parse(at));
      }
    });
  });
  requests.push(request);
}
process.stdin.on('data', (chunk) => {
  // `reset` forgets what was delivered so far (a replay after Last-Event-ID carries old stamps).
  if (chunk.toString().includes('reset')) latencies.length = 0;
  if (!chunk.toString().includes('report')) return;
  for (const request of requests) request.destroy();
  const summary = {
    delivered: latencies.length,
    median: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    max: percentile(latencies, 100),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
});
