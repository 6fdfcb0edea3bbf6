/**
 * Create latency through the BFF (HTTP → re-validation → dry run → create) against a direct
 * @kubernetes/client-node create in the same run (issue 6 target: median overhead < 5 ms).
 * The cluster runs in its own process, so both paths meet the same API server and neither
 * shares an event loop with its controllers. The direct client keeps its connections alive,
 * as the BFF's does.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import { embeddedConnection, startBff } from '@mgpu/bff';
import { kubeConfigFor } from '@mgpu/cluster-sim';
import { makeClients } from '@mgpu/kube-client';
import { checkRequest, WorkloadRequestSchema } from '@mgpu/shared';
import { heading, median, percentile } from '../lib/report.js';
import { startSimProcess } from '../lib/sim-process.js';

const ROUNDS = Number(process.env.ROUNDS ?? 150);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 50);
const cluster = await startSimProcess();
const bff = await startBff({
  connection: embeddedConnection(cluster),
  port: 0,
  logger: false,
});
const { apps } = makeClients(kubeConfigFor(cluster));
// Zero replicas: this measures the create path, not scheduling.
const request = (name: string) => ({
  name,
  replicas: 0,
  computePolicy: 'native-burst-share',
  containers: [
    {
      name: 'w',
      image: 'nginx',
      gpu: { type: 'mgpu', multiCard: true, compute: '1.2', memoryGiB: '8', cards: 2 },
    },
  ],
});

/**
 * POSTs to the BFF over Node's http with a keep-alive agent: the same HTTP stack client-node
 * uses (node-fetch on an http.Agent), so the comparison is of the paths, not of two clients.
 */
const agent = new http.Agent({ keepAlive: true });
function postToBff(path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const call = http.request(
      `${bff.url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          origin: bff.url,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

const direct: number[] = [];
const viaBff: number[] = [];
const viaBffFetch: number[] = [];
// Latency of one create on a settled cluster: each create's aftermath (watch events, the
// deployment controller's ReplicaSet, status updates) is over before the next is timed, so
// neither path pays for the other's.
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
for (let round = 0; round < ROUNDS + 10; round++) {
  const directName = `direct-${round}`;
  await settle();
  const manifest = checkRequest(WorkloadRequestSchema.parse(request(directName))).manifest;
  let start = performance.now();
  await apps.createNamespacedDeployment({ namespace: 'default', body: manifest as never });
  const directMs = performance.now() - start;

  const name = `bff-${round}`;
  await settle();
  start = performance.now();
  const status = await postToBff(
    '/trpc/workload.create',
    JSON.stringify({ request: request(name), clientRequestId: name }),
  );
  const bffMs = performance.now() - start;
  if (status !== 200) throw new Error(`create through the BFF failed: ${status}`);

  // The same through the global fetch (undici), as a script would: its own cost shows here.
  const fetchedName = `fetch-${round}`;
  await settle();
  start = performance.now();
  const response = await fetch(`${bff.url}/trpc/workload.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: bff.url },
    body: JSON.stringify({ request: request(fetchedName), clientRequestId: fetchedName }),
  });
  await response.arrayBuffer();
  const fetchMs = performance.now() - start;
  if (response.status !== 200) throw new Error(`create through the BFF failed: ${response.status}`);
  // The first rounds warm up connections and JIT.
  if (round >= 10) {
    direct.push(directMs);
    viaBff.push(bffMs);
    viaBffFetch.push(fetchMs);
  }
}

heading('Create latency, BFF vs direct client-node (issue 6)', 'median overhead < 5 ms');
const overhead = viaBff.map((ms, index) => ms - (direct[index] ?? 0));
const overheadFetch = viaBffFetch.map((ms, index) => ms - (direct[index] ?? 0));
const row = (samples: number[]) => ({
  'median ms': Number(median(samples).toFixed(2)),
  'p95 ms': Number(percentile(samples, 95).toFixed(2)),
});
console.table({
  'direct client-node create (baseline)': row(direct),
  'through the BFF (dry run + create), node http': row(viaBff),
  'overhead (paired), node http': row(overhead),
  'ratio (median)': {
    'median ms': Number((median(viaBff) / median(direct)).toFixed(2)),
    'p95 ms': '',
  },
  'through the BFF, global fetch (undici)': row(viaBffFetch),
  'overhead (paired), global fetch': row(overheadFetch),
});
console.log(`   machine load (1 min): ${loadavg()[0]?.toFixed(2)}`);
await bff.close();
await cluster.stop();
process.exit(0);
