/**
 * The cluster side of bench/bff/metrics.ts, run as its own process (forked with an IPC channel):
 * the generated cluster (API server, node agents, scheduler), its prefill and the churn
 * generator, so that the scrape the parent times is the console's own work, as in production
 * where the cluster runs elsewhere. The leading `_` keeps bench/run.ts from running it alone.
 *
 * Messages: it sends `{ ready, url, token, createdMs }` once the prefill is scheduled; it takes
 * `{ churn: rate }` (start creating and deleting pods at `rate` a second) and `{ stop: true }`
 * (answers `{ stopped, issued }`, then exits).
 */
import { parseArgs } from 'node:util';
import { startBenchCluster } from '../lib/cluster.js';
import { CHURN_SHAPES, type MgpuShape, mgpuPod } from '../lib/mgpu-pod.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string' },
    cards: { type: 'string' },
    prefill: { type: 'string' },
    impossible: { type: 'string' },
    namespace: { type: 'string' },
  },
});
const NODES = Number(values.nodes);
const CARDS = Number(values.cards);
const PREFILL = Number(values.prefill);
const IMPOSSIBLE = Number(values.impossible);
const NAMESPACE = values.namespace ?? 'metrics';

export type ClusterMessage =
  | { ready: true; url: string; token: string; createdMs: number }
  | { stopped: true; issued: number };
export type DriverMessage = { churn: number } | { stop: true };

const send = (message: ClusterMessage) => process.send?.(message);
const log = (message: string) => {
  if (process.env.BENCH_VERBOSE) process.stderr.write(`${message}\n`);
};

const shapeOf = (index: number) => CHURN_SHAPES[index % CHURN_SHAPES.length] as MgpuShape;
const fillPod = (index: number) => mgpuPod(`fill-${index}`, NAMESPACE, 'fill', shapeOf(index));

const cluster = await startBenchCluster({
  nodes: NODES,
  cardsPerNode: CARDS,
  namespace: NAMESPACE,
  log,
});
const { server, core } = cluster;
const started = performance.now();
await cluster.createPods(PREFILL, fillPod);
for (let index = 0; index < IMPOSSIBLE; index++)
  await core.createNamespacedPod({
    namespace: NAMESPACE,
    body: mgpuPod(`nofit-${index}`, NAMESPACE, 'nofit', {
      policy: 'native-burst-share',
      core: 720,
      memoryMiB: 8 * 51200,
      cards: 8,
    }),
  });
await cluster.settle();
send({ ready: true, url: server.url, token: server.token, createdMs: performance.now() - started });

// Under churn: one create and one delete of the oldest pod, alternating, at `rate` per second.
let next = PREFILL;
const alive = Array.from({ length: PREFILL }, (_, index) => index);
let issued = 0;
let churn: NodeJS.Timeout | undefined;
function startChurn(rate: number) {
  let inFlight = 0;
  const churnStartedAt = performance.now();
  churn = setInterval(() => {
    const due = Math.floor(((performance.now() - churnStartedAt) / 1000) * rate);
    for (; issued < due && inFlight < 64; issued++) {
      inFlight++;
      const operation =
        issued % 2 === 0
          ? (async () => {
              const index = next++;
              await core.createNamespacedPod({ namespace: NAMESPACE, body: fillPod(index) });
              alive.push(index);
            })()
          : (async () => {
              const oldest = alive.shift();
              if (oldest !== undefined)
                await core.deleteNamespacedPod({
                  namespace: NAMESPACE,
                  name: `fill-${oldest}`,
                  gracePeriodSeconds: 0,
                });
            })();
      operation.then(
        () => inFlight--,
        () => inFlight--,
      );
    }
  }, 10);
}

// A driver that died leaves no cluster behind.
process.on('disconnect', () => process.exit(1));
process.on('message', async (message: DriverMessage) => {
  if ('churn' in message) startChurn(message.churn);
  else {
    clearInterval(churn);
    send({ stopped: true, issued });
    await cluster.stop();
    process.exit(0);
  }
});
