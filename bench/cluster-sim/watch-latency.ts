/**
 * Watch event latency of the embedded API server: 100 concurrent pod watchers, and the time
 * from the start of each write (POST of a pod) until each watcher has parsed its ADDED event.
 * Target (issue 4): p95 under 50 ms. Watchers and server share this process (and the
 * machine's 2 cores), so the figure is conservative. Figures only, no assertions.
 */
import http from 'node:http';
import { authorizationFor, startApiServer } from '../../packages/cluster-sim/src/index.js';
import { heading, percentile } from '../lib/report.js';

const WATCHERS = 100;
const WRITES = 200;
const PAUSE_MS = 5;

const agent = new http.Agent({ keepAlive: true, maxSockets: WATCHERS + 8 });

function request(
  url: string,
  method: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      {
        method,
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...authorizationFor(server),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Opens a watch and calls `onAdded(name, receivedAt)` for every ADDED event it parses. */
function openWatch(
  url: string,
  onAdded: (name: string, receivedAt: number) => void,
): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const outgoing = http.get(
      url,
      { agent, headers: { accept: 'application/json', ...authorizationFor(server) } },
      (response) => {
        let buffered = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffered += chunk;
          let newline = buffered.indexOf('\n');
          while (newline !== -1) {
            const line = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            const event = JSON.parse(line) as {
              type: string;
              object: { metadata: { name: string } };
            };
            if (event.type === 'ADDED') onAdded(event.object.metadata.name, performance.now());
            newline = buffered.indexOf('\n');
          }
        });
        resolve(outgoing);
      },
    );
    outgoing.on('error', reject);
  });
}

const server = await startApiServer({});
const namespace = 'bench-watch';
await request(
  `${server.url}/api/v1/namespaces`,
  'POST',
  JSON.stringify({ metadata: { name: namespace } }),
);
const list = JSON.parse(
  (await request(`${server.url}/api/v1/namespaces/${namespace}/pods`, 'GET')).text,
) as {
  metadata: { resourceVersion: string };
};

const writtenAt = new Map<string, number>();
const latencies: number[] = [];
let received = 0;
const watches: http.ClientRequest[] = [];
for (let i = 0; i < WATCHERS; i += 1) {
  watches.push(
    await openWatch(
      `${server.url}/api/v1/namespaces/${namespace}/pods?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      (name, receivedAt) => {
        const start = writtenAt.get(name);
        if (start !== undefined) latencies.push(receivedAt - start);
        received += 1;
      },
    ),
  );
}

const started = performance.now();
for (let i = 0; i < WRITES; i += 1) {
  const name = `pod-${i}`;
  writtenAt.set(name, performance.now());
  const created = await request(
    `${server.url}/api/v1/namespaces/${namespace}/pods`,
    'POST',
    JSON.stringify({
      metadata: { name, labels: { app: 'bench' } },
      spec: { containers: [{ name: 'worker', image: 'nginx:1.27' }] },
    }),
  );
  if (created.status !== 201) throw new Error(`create failed: ${created.text}`);
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}
const deadline = Date.now() + 10_000;
while (received < WATCHERS * WRITES && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 10));
const elapsed = performance.now() - started;

heading(`watch event latency, ${WATCHERS} watchers x ${WRITES} pod creations`, 'p95 < 50 ms');
console.table({
  'write -> watcher received': {
    samples: latencies.length,
    'expected samples': WATCHERS * WRITES,
    'p50 ms': Number(percentile(latencies, 50).toFixed(2)),
    'p95 ms': Number(percentile(latencies, 95).toFixed(2)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(2)),
    'max ms': Number(Math.max(...latencies).toFixed(2)),
    'events delivered/s': Math.round((latencies.length / elapsed) * 1000),
  },
});

for (const watch of watches) watch.destroy();
agent.destroy();
await server.close();
