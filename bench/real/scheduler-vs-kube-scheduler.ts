/**
 * The mGPU scheduler beside upstream kube-scheduler on the same upstream API server (issue 20;
 * target: the mGPU scheduler at or above kube-scheduler's pods per CPU-second, with the card
 * layer included). The real control plane of tools/kube (etcd, kube-apiserver and
 * kube-controller-manager v1.32.13), N nodes × 8 cards registered as a kubelet would, then:
 *
 *   A. kube-scheduler v1.32.13 (default profile, as system:kube-scheduler) binds P plain CPU pods;
 *   B. the same P pod count, as mGPU pods, bound by the project's mGPU scheduler onto the same
 *      (emptied) nodes: node, then cards, card indexes on the Binding, a Scheduled event each.
 *
 * Each scheduler runs in its own process and its CPU time is read from /proc the same way. The
 * clock runs from the first pod created to the last one bound (both seen through a watch), so
 * both figures include the same creation load. No kubelets: pods stay Pending on their node,
 * which is all scheduling throughput needs. Figures only; the machine's load is printed beside.
 *
 * `pnpm bench scheduler-vs --nodes 100 --pods 1000` for a smaller run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { mergePatch, startInformer } from '@mgpu/kube-client';
import { generateTopology, SCHEDULER_NAME } from '../../packages/cluster-sim/src/index.js';
import {
  CLUSTER_ROLES_FILE,
  createFromFile,
  registerNodes,
  TEST_BINDINGS_FILE,
  waitForDefaultServiceAccount,
} from '../../tools/kube/src/cluster-setup.js';
import {
  buildBinaries,
  type ControlPlane,
  startControlPlane,
  startKubeScheduler,
} from '../../tools/kube/src/control-plane.js';
import {
  contextName,
  kubeConfigFor,
  kubeconfigText,
  writeKubeconfig,
} from '../../tools/kube/src/kubeconfig.js';
import { stopProcess } from '../../tools/kube/src/processes.js';
import { loadShapeOf, mgpuPod } from '../lib/mgpu-pod.js';
import { heading, median, percentile } from '../lib/report.js';

const { values } = parseArgs({
  options: {
    pods: { type: 'string', default: '10000' },
    nodes: { type: 'string', default: '1000' },
    /** kube-scheduler's client rate limit: high enough that the API server, not it, sets the pace. */
    'kube-api-qps': { type: 'string', default: '5000' },
  },
  allowPositionals: true,
});
const PODS = Number(values.pods);
const NODES = Number(values.nodes);
const KUBE_API_QPS = Number(values['kube-api-qps']);
const CARDS = 8;
const CREATE_CONCURRENCY = 32;
/** A phase that has not bound every pod by then reports what it bound. */
const PHASE_TIMEOUT_MS = 30 * 60_000;

const log = (message: string) => process.stderr.write(`[scheduler-vs-kube-scheduler] ${message}\n`);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => Number((ms / 1000).toFixed(3));
const load1m = () => Number(loadavg()[0]?.toFixed(2));

const CLOCK_TICKS =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU seconds a process has used so far (Linux /proc; all its threads). */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * CPU seconds once the scheduler has gone quiet after the last binding, so the work that trails
 * it (events, the watch echo of the bindings) is counted for both schedulers alike.
 */
async function cpuSecondsWhenIdle(pid: number): Promise<number> {
  let before = cpuSecondsOf(pid);
  for (let tries = 0; tries < 15; tries++) {
    await delay(1000);
    const after = cpuSecondsOf(pid);
    if (after - before < 0.05) return before;
    before = after;
  }
  return before;
}

const cpuPod = (namespace: string, index: number): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `cpu-${index}`, namespace, labels: { app: 'load' } },
  spec: {
    schedulerName: 'default-scheduler',
    containers: [
      {
        name: 'main',
        image: 'nginx:1.27',
        resources: { requests: { cpu: '100m', memory: '128Mi' } },
      },
    ],
  },
});

/** The scheduling-throughput bench's mix of slices and multi-card pods, named for our scheduler. */
const gpuPod = (namespace: string, index: number): V1Pod => {
  const pod = mgpuPod(`mgpu-${index}`, namespace, 'load', loadShapeOf(index));
  return { ...pod, spec: { ...pod.spec, schedulerName: SCHEDULER_NAME } };
};

interface PhaseFigures {
  pods: number;
  bound: number;
  'create s': number;
  'first create → last bound s': number;
  'pods/s bound': number;
  'bind latency p50 s': number;
  'bind latency p95 s': number;
  'scheduler CPU s': number;
  'CPU ms per pod': number;
  'pods per CPU-second': number;
  'load 1m start → end': string;
}

/** Creates the pods in a fresh namespace while `schedulerPid` binds them; times each one. */
async function runPhase(
  admin: KubeConfig,
  namespace: string,
  podBody: (namespace: string, index: number) => V1Pod,
  schedulerPid: number,
): Promise<PhaseFigures> {
  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  // The ServiceAccount admission plugin rejects pods until the namespace has its default one.
  await waitForDefaultServiceAccount(admin, namespace);

  const createdAt = new Map<string, number>();
  const boundAt = new Map<string, number>();
  let allBound: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allBound = resolve;
  });
  const onPod = (pod: V1Pod) => {
    const name = pod.metadata?.name ?? '';
    if (pod.spec?.nodeName && !boundAt.has(name)) {
      boundAt.set(name, performance.now());
      if (boundAt.size === PODS) allBound();
    }
  };
  const watch = await startInformer<V1Pod>(
    admin,
    `/api/v1/namespaces/${namespace}/pods`,
    () => core.listNamespacedPod({ namespace }),
    { add: onPod, update: onPod },
  );

  const loadStart = load1m();
  const cpuStart = cpuSecondsOf(schedulerPid);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      for (let index = next++; index < PODS; index = next++) {
        const body = podBody(namespace, index);
        createdAt.set(body.metadata?.name ?? '', performance.now());
        await core.createNamespacedPod({ namespace, body });
      }
    }),
  );
  const createMs = performance.now() - started;
  const timeout = delay(PHASE_TIMEOUT_MS).then(() => log(`${namespace}: timed out`));
  await Promise.race([done, timeout]);
  const cpuSeconds = (await cpuSecondsWhenIdle(schedulerPid)) - cpuStart;
  await watch.stop();

  const lastBound = Math.max(...boundAt.values());
  const latencies = [...boundAt].map(([name, at]) => at - (createdAt.get(name) ?? at));
  const boundMs = lastBound - started;
  return {
    pods: PODS,
    bound: boundAt.size,
    'create s': seconds(createMs),
    'first create → last bound s': seconds(boundMs),
    'pods/s bound': Math.round(boundAt.size / (boundMs / 1000)),
    'bind latency p50 s': seconds(median(latencies)),
    'bind latency p95 s': seconds(percentile(latencies, 95)),
    'scheduler CPU s': Number(cpuSeconds.toFixed(2)),
    'CPU ms per pod': Number(((cpuSeconds * 1000) / boundAt.size).toFixed(3)),
    'pods per CPU-second': Math.round(boundAt.size / cpuSeconds),
    'load 1m start → end': `${loadStart} → ${load1m()}`,
  };
}

/** Force-deletes a phase's pods (no kubelet would ever confirm a graceful delete). */
async function emptyNamespace(admin: KubeConfig, namespace: string): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  while ((await core.listNamespacedPod({ namespace, limit: 1 })).items.length > 0) await delay(250);
}

const MGPU_SCHEDULER_MAIN = fileURLToPath(new URL('./_mgpu-scheduler.ts', import.meta.url));

/** The mGPU scheduler in its own process (as mgpu-controllers); resolves once it has synced. */
async function startMgpuSchedulerProcess(kubeconfigFile: string) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=source',
      MGPU_SCHEDULER_MAIN,
      '--kubeconfig',
      kubeconfigFile,
      '--context',
      contextName('controllers'),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`mGPU scheduler exited (${code}) before sync`)));
    lines.on('line', (line) => {
      if (line === 'synced') resolve();
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('mGPU scheduler has no pid');
  return {
    pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

heading(
  `kube-scheduler vs the mGPU scheduler: ${PODS} pods onto ${NODES} nodes × ${CARDS} cards on upstream kube-apiserver`,
  'mGPU scheduler ≥ kube-scheduler in pods per CPU-second (ratio ≥ 1), card layer included',
);
// The exit hook of tools/kube's processes kills the control plane; signals must reach it.
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const dir = mkdtempSync(join(tmpdir(), 'mgpu-bench-schedulers-'));
let controlPlane: ControlPlane | undefined;
try {
  const binDir = await buildBinaries(() => undefined);
  controlPlane = await startControlPlane(binDir, { dir, log });
  const text = kubeconfigText(controlPlane.server, controlPlane.pki, controlPlane.users);
  const kubeconfigFile = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfigFile, text);
  const admin = kubeConfigFor(text, 'admin');
  await createFromFile(admin, CLUSTER_ROLES_FILE);
  await createFromFile(admin, TEST_BINDINGS_FILE);

  let started = performance.now();
  const topology = generateTopology({ nodes: NODES, cardsPerNode: CARDS });
  await registerNodes(admin, topology);
  // The TaintNodesByCondition admission plugin gives every new Node `not-ready:NoSchedule`;
  // the node lifecycle controller that would lift it once Ready is off (no kubelets heartbeat).
  const core = admin.makeApiClient(CoreV1Api);
  let untainted = 0;
  for (const node of (await core.listNode()).items) {
    if ((node.spec?.taints ?? []).length === 0) continue;
    await core.patchNode(
      { name: node.metadata?.name ?? '', body: { spec: { taints: null } } },
      mergePatch(),
    );
    untainted++;
  }
  log(
    `${NODES} nodes registered (${untainted} start-up taints lifted) in ${seconds(performance.now() - started)} s`,
  );

  started = performance.now();
  const kubeScheduler = await startKubeScheduler(binDir, controlPlane, {
    dir,
    qps: KUBE_API_QPS,
    log,
  });
  log(`kube-scheduler synced in ${seconds(performance.now() - started)} s`);
  const pid = kubeScheduler.child.pid;
  if (pid === undefined) throw new Error('kube-scheduler has no pid');
  const kube = await runPhase(admin, 'bench-kube-scheduler', cpuPod, pid);
  await stopProcess(kubeScheduler);
  log('phase A done; emptying the nodes');
  await emptyNamespace(admin, 'bench-kube-scheduler');

  started = performance.now();
  const mgpuScheduler = await startMgpuSchedulerProcess(kubeconfigFile);
  log(`mGPU scheduler synced in ${seconds(performance.now() - started)} s`);
  const mgpu = await runPhase(admin, 'bench-mgpu-scheduler', gpuPod, mgpuScheduler.pid);
  await mgpuScheduler.stop();

  console.table({
    [`kube-scheduler v1.32.13 (CPU pods, ${KUBE_API_QPS} QPS)`]: kube,
    'mGPU scheduler (mGPU pods: node + cards)': mgpu,
  });
  const ratio = mgpu['pods per CPU-second'] / kube['pods per CPU-second'];
  console.log(
    `ratio mGPU ÷ kube-scheduler — pods per CPU-second: ${ratio.toFixed(2)} (target ≥ 1.00); ` +
      `pods/s bound: ${(mgpu['pods/s bound'] / kube['pods/s bound']).toFixed(2)}; ` +
      `CPU per pod: ${(mgpu['CPU ms per pod'] / kube['CPU ms per pod']).toFixed(2)} · ` +
      `load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')} on ${cpus().length} cores`,
  );
} finally {
  await controlPlane?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
