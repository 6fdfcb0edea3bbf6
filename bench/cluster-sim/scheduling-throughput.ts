/**
 * Scheduling throughput through the controllers (target ≥ 300 pods/s): 10,000 mGPU pods onto
 * 1,000 nodes × 8 cards of the embedded cluster. The pods are created first, then the mGPU
 * scheduler starts, so the figure is the scheduler's own rate: placePod, the annotation patch
 * and the binding, all through @kubernetes/client-node, with the node agents starting the pods
 * (status + MgpuNode reports) at the same time in the same process. Figures only.
 *
 * `PODS=2000 NODES=200 pnpm bench scheduling` for a smaller run.
 */
import { makeClients, startInformer } from '@mgpu/kube-client';
import {
  generateTopology,
  kubeConfigFor,
  startApiServer,
  startNodeAgents,
  startScheduler,
} from '../../packages/cluster-sim/src/index.js';
import { type MgpuShape, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';

const PODS = Number(process.env.PODS ?? 10_000);
const NODES = Number(process.env.NODES ?? 1000);
const CARDS = 8;
const NAMESPACE = 'bench';
const CREATE_CONCURRENCY = 32;

/** A mix of slices and the seed's multi-card pod: about half the cluster's compute in all. */
const SHAPES: readonly (MgpuShape & { weight: number })[] = [
  { weight: 4, policy: 'native-burst-share', core: 30, memoryMiB: 6144, cards: 1 },
  { weight: 3, policy: 'native-burst-share', core: 50, memoryMiB: 10240, cards: 1 },
  { weight: 2, policy: 'native-burst-share', core: 120, memoryMiB: 8192, cards: 2 },
  { weight: 1, policy: 'native-burst-share', core: 10, memoryMiB: 2048, cards: 1 },
];
const WEIGHTS = SHAPES.reduce((sum, shape) => sum + shape.weight, 0);
const shapeOf = (index: number): MgpuShape => {
  const slot = index % WEIGHTS;
  let seen = 0;
  for (const shape of SHAPES) {
    seen += shape.weight;
    if (slot < seen) return shape;
  }
  throw new Error('unreachable: the weights cover every slot');
};

const podBody = (index: number) => mgpuPod(`load-${index}`, NAMESPACE, 'load', shapeOf(index));

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

heading(
  `scheduling ${PODS} pods onto ${NODES} nodes × ${CARDS} cards through the controllers`,
  '≥ 300 pods/s',
);
const server = await startApiServer({ port: 0, watchWindow: PODS * 8 });
const kubeConfig = kubeConfigFor(server.url);
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

await podWatch.stop();
await scheduler.stop();
await agents.stop();
await server.close();
process.exit(0);
