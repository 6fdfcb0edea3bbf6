/**
 * The BFF's memory under clients that hold it (issue 14): 2,000 SSE subscribers of
 * allocations.watch opened and closed, and 200 requests that never finish arriving, held until
 * the console's own timeouts cut them. Figures only — RSS before, at its peak, and after — no
 * pass or fail. The cluster runs in its own process, the subscribers in a second one (as in
 * sse-fanout.ts), so the BFF's RSS is this process's.
 */
import { once } from 'node:events';
import net from 'node:net';
import { embeddedConnection, startBff } from '@mgpu/bff';
import { heading } from '../lib/report.js';
import { startSimProcess } from '../lib/sim-process.js';
import { startSseClients } from '../lib/sse-clients.js';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 2000);
const HELD = Number(process.env.HELD ?? 200);

const cluster = await startSimProcess();
// The production timeouts (headers 10 s, whole request 30 s): the figures are what ships.
const bff = await startBff({ connection: embeddedConnection(cluster), port: 0, logger: false });

const gc = (globalThis as { gc?: () => void }).gc;
const rssMiB = () => {
  gc?.();
  return process.memoryUsage().rss / 1024 / 1024;
};

/** Samples RSS every 100 ms while `work` runs; the highest sample is the peak. */
async function measure(work: () => Promise<Record<string, number>>) {
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024);
  }, 100);
  const extra = await work();
  clearInterval(sampler);
  // Let closed sockets' buffers go (and the collector run) before the last figure.
  for (let pass = 0; pass < 3; pass++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    gc?.();
  }
  const after = rssMiB();
  peak = Math.max(peak, after);
  return {
    'RSS before MiB': Number(before.toFixed(1)),
    'RSS peak MiB': Number(peak.toFixed(1)),
    'RSS after MiB': Number(after.toFixed(1)),
    'after − before MiB': Number((after - before).toFixed(1)),
    ...extra,
  };
}

const waitFor = async (done: () => boolean, boundMs: number) => {
  const until = Date.now() + boundMs;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
};

/** SUBSCRIBERS SSE clients in a child process: connect all, then leave all at once. */
async function subscribersOpenedAndClosed() {
  const started = Date.now();
  const { child, nextLine } = startSseClients(
    `${bff.url}/trpc/allocations.watch?input=%7B%7D`,
    SUBSCRIBERS,
  );
  await nextLine();
  const connectSeconds = (Date.now() - started) / 1000;
  const openStreams = bff.context.allocations.subscriberCount;
  const rssOpen = rssMiB();
  // `report` makes the child drop every connection and exit.
  child.stdin.write('report\n');
  await once(child, 'exit');
  await waitFor(() => bff.context.allocations.subscriberCount === 0, 60_000);
  return {
    'RSS with all open MiB': Number(rssOpen.toFixed(1)),
    'subscribers seen by the feed': openStreams,
    'seconds to connect all': Number(connectSeconds.toFixed(2)),
    'left in the feed after closing': bff.context.allocations.subscriberCount,
  };
}

/** Headers and half a body, or half the headers, on a raw socket: a request never finished. */
function holdPartialRequest(kind: 'body' | 'headers'): Promise<{ isClosed: () => boolean }> {
  const { hostname, port, host } = new URL(bff.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let closed = false;
    socket.once('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.once('connect', () => {
      const body = JSON.stringify({ namespace: 'default', name: 'x'.repeat(200) });
      socket.write(
        kind === 'body'
          ? `POST /trpc/workload.delete HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${bff.url}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`
          : `GET /trpc/gpu.models HTTP/1.1\r\nHost: ${host}\r\nAccept: applica`,
      );
      resolve({ isClosed: () => closed });
    });
    socket.once('error', reject);
  });
}

async function partialRequestsHeld() {
  const started = Date.now();
  const held = await Promise.all(
    Array.from({ length: HELD }, (_, index) => holdPartialRequest(index % 2 ? 'headers' : 'body')),
  );
  const health = await fetch(`${bff.url}/healthz`, { signal: AbortSignal.timeout(20_000) });
  await waitFor(() => held.every((socket) => socket.isClosed()), 90_000);
  return {
    '/healthz while held': health.status,
    'seconds until the server closed all': Number(((Date.now() - started) / 1000).toFixed(1)),
    'still open at the end': held.filter((socket) => !socket.isClosed()).length,
  };
}

heading(
  `BFF memory under held clients (issue 14): ${SUBSCRIBERS} SSE subscribers, ${HELD} partial requests`,
  'figures only: RSS returns near its start; held requests are cut by the server timeouts',
);
const sse = await measure(subscribersOpenedAndClosed);
const partial = await measure(partialRequestsHeld);
const rssColumns = ['RSS before MiB', 'RSS peak MiB', 'RSS after MiB', 'after − before MiB'];
const split = (figures: Record<string, number>) => ({
  rss: Object.fromEntries(Object.entries(figures).filter(([key]) => rssColumns.includes(key))),
  other: Object.fromEntries(Object.entries(figures).filter(([key]) => !rssColumns.includes(key))),
});
const sseFigures = split(sse);
const partialFigures = split(partial);
const sseRow = `${SUBSCRIBERS} SSE subscribers opened, then closed`;
const heldRow = `${HELD} partial requests held until cut`;
console.table({ [sseRow]: sseFigures.rss, [heldRow]: partialFigures.rss });
console.table({ ...sseFigures.other, ...partialFigures.other });
await bff.close();
await cluster.stop();
process.exit(0);
