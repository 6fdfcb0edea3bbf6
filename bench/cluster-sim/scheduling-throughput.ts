/**
 * Scheduling throughput through the controllers (target ≥ 300 pods/s): 10,000 mGPU pods onto
 * 1,000 nodes × 8 cards of the embedded cluster. The pods are created first, then the mGPU
 * scheduler starts, so the figure is the scheduler's own rate: placePod, the annotation patch
 * and the binding, all through @kubernetes/client-node, with the node agents starting the pods
 * (status + MgpuNode reports) at the same time in the same process. Figures only.
 *
 * Then the scheduler's Events: emitted, written, and outcomes lost (pods whose scheduling
 * outcome has no Event in the API) — target 0.
 *
 * `PODS=2000 NODES=200 pnpm bench scheduling` for a smaller run; EVENTS=0 writes none.
 */
import { makeClients, startInformer } from '@mgpu/kube-client';
import {
  generateTopology,
  kubeConfigFor,
  startApiServer,
  startNodeAgents,
  startScheduler,
} from '../../packages/cluster-sim/src/index.js';
import { loadShapeOf, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, machineLoad, median, percentile } from '../lib/report.js';

const PODS = Number(process.env.PODS ?? 10_000);
const NODES = Number(process.env.NODES ?? 1000);
const CARDS = 8;
const NAMESPACE = 'bench';
const CREATE_CONCURRENCY = 32;

const podBody = (index: number) => mgpuPod(`load-${index}`, NAMESPACE, 'load', loadShapeOf(index));

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

heading(
  `scheduling ${PODS} pods onto ${NODES} nodes × ${CARDS} cards through the controllers`,
  '≥ 300 pods/s, 0 outcomes without an Event',
);
const server = await startApiServer({ port: 0, watchWindow: PODS * 8 });
const kubeConfig = kubeConfigFor(server);
const { core } = makeClients(kubeConfig);
const log = (message: string) => process.stderr.write(`${message}\n`);

let started = performance.now();
const agents = await startNodeAgents(kubeConfig, {
  topology: generateTopology({ nodes: NODES, cardsPerNode: CARDS }),
  reportDelayMs: Number(process.env.REPORT_DELAY_MS ?? 500),
  log,
});
console.log(`nodes registered by their agents in ${seconds(performance.now() - started)} s`);
await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });

// Watch our own pods to time each one from creation to binding and to Running.
const createdAt = new Map<string, number>();
const boundAt = new Map<string, number>();
const runningAt = new Map<string, number>();
let allRunning: () => void = () => undefined;
const done = new Promise<void>((resolve) => {
  allRunning = resolve;
});
const onPod = (object: {
  metadata?: { name?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}) => {
  const name = object.metadata?.name ?? '';
  const now = performance.now();
  if (object.spec?.nodeName && !boundAt.has(name)) boundAt.set(name, now);
  if (object.status?.phase === 'Running' && !runningAt.has(name)) {
    runningAt.set(name, now);
    if (runningAt.size === PODS) allRunning();
  }
};
const podWatch = await startInformer(
  kubeConfig,
  `/api/v1/namespaces/${NAMESPACE}/pods`,
  () => core.listNamespacedPod({ namespace: NAMESPACE }),
  { add: onPod, update: onPod },
);

started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CREATE_CONCURRENCY }, async () => {
    for (let index = next++; index < PODS; index = next++) {
      createdAt.set(`load-${index}`, performance.now());
      await core.createNamespacedPod({ namespace: NAMESPACE, body: podBody(index) });
    }
  }),
);
const createMs = performance.now() - started;
console.log(
  `created ${PODS} pending pods in ${seconds(createMs)} s (${Math.round(PODS / (createMs / 1000))} pods/s)`,
);

const memoryBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
const schedulingStart = performance.now();
const scheduler = await startScheduler(kubeConfig, {
  log,
  retryUnschedulableMs: 0,
  scheduledEvents: process.env.EVENTS !== '0',
});
await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 600_000))]);
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const boundTimes = [...boundAt.values()];
const lastBound = Math.max(...boundTimes);
const lastRunning = Math.max(...runningAt.values());
const scheduleMs = lastBound - schedulingStart;
const bindLatency = [...boundAt.values()].map((at) => at - schedulingStart);

console.table({
  'mGPU scheduler (pods pending when it starts)': {
    pods: PODS,
    bound: boundAt.size,
    'all bound s': seconds(scheduleMs),
    'pods/s bound': Math.round(boundAt.size / (scheduleMs / 1000)),
    'all Running s': seconds(lastRunning - schedulingStart),
    'pods/s Running': Math.round(runningAt.size / ((lastRunning - schedulingStart) / 1000)),
    'bind time median s': seconds(median(bindLatency)),
    'bind time p95 s': seconds(percentile(bindLatency, 95)),
    'bind time p99 s': seconds(percentile(bindLatency, 99)),
    // The machine's 2 cores are shared: CPU time says what the work costs, load or not.
    'CPU s (server + controllers)': Number(cpuSeconds.toFixed(2)),
    'pods per CPU-second': Math.round(runningAt.size / cpuSeconds),
    'RSS MiB (all in one process)': Math.round(process.memoryUsage().rss / 2 ** 20),
    'RSS growth MiB while scheduling': Math.round(
      (process.memoryUsage().rss - memoryBefore) / 2 ** 20,
    ),
  },
});
console.log(`   ${machineLoad()} (API server, scheduler and node agents in this process)`);

if (process.env.EVENTS !== '0') {
  // Every pod's outcome must have its Event: wait for the rate-limited writes to drain, then
  // ask the API which pods have none.
  const drainStart = performance.now();
  await Promise.race([scheduler.idle(), new Promise((resolve) => setTimeout(resolve, 300_000))]);
  const drainMs = performance.now() - drainStart;
  const stats = scheduler.eventStats();
  const written = await core.listNamespacedEvent({ namespace: NAMESPACE });
  const withOutcome = new Set(
    written.items
      .filter((event) => event.reason === 'Scheduled' || event.reason === 'FailedScheduling')
      .map((event) => event.involvedObject.name),
  );
  const podsWithoutEvent = [...createdAt.keys()].filter((name) => !withOutcome.has(name)).length;
  console.table({
    'scheduler events': {
      emitted: stats.emitted,
      'Events created': stats.creates,
      'count updates written': stats.patches,
      'folded into a waiting write': stats.coalesced,
      'held by the spam filter': stats.spamHeld,
      'repeats shed': stats.repeatsShed,
      'events dropped (never written)': stats.outcomesLost,
      'outcomes lost (pods without an Event)': podsWithoutEvent,
      'drain after the last pod Running s': seconds(drainMs),
    },
  });
  console.log(`   ${machineLoad()}`);
}

await podWatch.stop();
await scheduler.stop();
await agents.stop();
await server.close();
process.exit(0);
