/**
 * 1,000 concurrent SSE subscribers on one BFF (issue 6): exactly one upstream watch per
 * resource however many subscribe, event-to-subscriber latency (target p95 < 50 ms) and the
 * BFF's memory per subscriber. The cluster runs in its own process (as a BFF meets a cluster)
 * behind a counting TCP proxy; the subscribers are a second process. The same changes are
 * first watched by one subscriber: the baseline of the fan-out's cost.
 */
import net from 'node:net';
import { loadavg } from 'node:os';
import { embeddedConnection, startBff } from '@mgpu/bff';
import { heading } from '../lib/report.js';
import { startSimProcess } from '../lib/sim-process.js';
import { startSseClients } from '../lib/sse-clients.js';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const CHANGES = 20;

const cluster = await startSimProcess();
const upstream = new URL(cluster.url);
// A TCP proxy that reads the request lines going to the API server and counts watches by path.
const watches = new Map<string, number>();
const proxy = net.createServer((client) => {
  const server = net.connect(Number(upstream.port), upstream.hostname);
  client.on('data', (chunk: Buffer) => {
    for (const match of chunk.toString('latin1').matchAll(/^(?:GET) (\S+) HTTP\/1\.1/gm)) {
      const url = new URL(match[1] ?? '/', cluster.url);
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
        watches.set(url.pathname, (watches.get(url.pathname) ?? 0) + 1);
      }
    }
  });
  client.pipe(server);
  server.pipe(client);
  const close = () => {
    client.destroy();
    server.destroy();
  };
  client.on('error', close);
  server.on('error', close);
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
const bff = await startBff({
  connection: embeddedConnection({ url: proxyUrl, token: cluster.token }),
  port: 0,
  logger: false,
});

const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  return process.memoryUsage();
};

interface Latency {
  delivered: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
}

let round = 0;
/** `subscribers` SSE clients in a child process watch CHANGES workloads come and go. */
async function watchChanges(subscribers: number) {
  const { child, nextLine } = startSseClients(
    `${bff.url}/trpc/allocations.watch?input=%7B%7D`,
    subscribers,
  );
  const started = Date.now();
  await nextLine();
  const connectSeconds = (Date.now() - started) / 1000;
  const connected = memory();
  const seenByFeed = bff.context.allocations.subscriberCount;
  round++;
  // Changes: workloads created and deleted through the API; each makes records upsert/delete.
  for (let index = 0; index < CHANGES; index++) {
    const name = `fanout-${round}-${index}`;
    await fetch(`${bff.url}/trpc/workload.create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: bff.url },
      body: JSON.stringify({
        request: {
          name,
          computePolicy: 'native-burst-share',
          containers: [
            {
              name: 'w',
              image: 'nginx',
              gpu: { type: 'mgpu', multiCard: true, compute: '0.2', memoryGiB: '2', cards: 2 },
            },
          ],
        },
        clientRequestId: name,
      }),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  await new Promise((resolve) => setTimeout(resolve, 2000));
  child.stdin.write('report\n');
  const latency = JSON.parse(await nextLine()) as Latency;
  child.kill();
  return { latency, connectSeconds, connected, seenByFeed };
}

const baseline = await watchChanges(1);
const watchesBefore = new Map(watches);
const before = memory();
const fanout = await watchChanges(SUBSCRIBERS);
const connected = fanout.connected;

heading(
  `SSE fan-out, ${SUBSCRIBERS} subscribers on one BFF (issue 6)`,
  'one upstream watch per resource; p95 < 50 ms; memory per subscriber',
);
const newWatches = [...watches].map(
  ([path, count]) => [path, count - (watchesBefore.get(path) ?? 0)] as const,
);
console.table(
  Object.fromEntries(
    [...watches].map(([path, count]) => [
      path,
      {
        'watches opened (total)': count,
        'opened while subscribers joined': newWatches.find(([p]) => p === path)?.[1] ?? 0,
      },
    ]),
  ),
);
const row = (run: typeof fanout, subscribers: number) => ({
  subscribers,
  'seconds to connect all': Number(run.connectSeconds.toFixed(2)),
  'subscribers seen by the feed': run.seenByFeed,
  'events delivered (all subscribers)': run.latency.delivered,
  'latency median ms (BFF stamp → client)': run.latency.median,
  'latency p95 ms': run.latency.p95,
  'latency p99 ms': run.latency.p99,
  'latency max ms': run.latency.max,
});
console.table({
  'baseline: 1 subscriber': row(baseline, 1),
  [`${SUBSCRIBERS} subscribers`]: row(fanout, SUBSCRIBERS),
  'ratio (p95)': {
    subscribers: SUBSCRIBERS,
    'latency p95 ms': Number((fanout.latency.p95 / Math.max(baseline.latency.p95, 1)).toFixed(2)),
  },
});
console.table({
  'changes made per run': { value: CHANGES },
  'BFF heap per subscriber KiB': {
    value: Number(((connected.heapUsed - before.heapUsed) / SUBSCRIBERS / 1024).toFixed(1)),
  },
  'BFF RSS per subscriber KiB': {
    value: Number(((connected.rss - before.rss) / SUBSCRIBERS / 1024).toFixed(1)),
  },
  'pod informer listeners': { value: bff.context.cluster.pods.listenerCount },
  'machine load (1 min)': { value: Number(loadavg()[0]?.toFixed(2)) },
});
await bff.close();
proxy.close();
await cluster.stop();
process.exit(0);
