/**
 * The pool history's memory bound (issue 18): the BFF keeps `--retention-minutes` of per-pool
 * samples, one every 10 s, in a ring of fixed length (`packages/api/src/live/pool-history.ts`). This
 * fills a ring on a live console (a generated cluster with every model × policy pool) to three
 * times its capacity and prints the heap after a full GC at each step: it grows until the ring
 * is full, then stays. Samples are taken back to back with their times 10 s apart, so an hour's
 * ring fills in a moment. Figures only: nothing fails on size.
 *
 * `pnpm bench history-memory [--nodes 100] [--retention-minutes 60]`
 */
import { parseArgs } from 'node:util';
import { embeddedConnection, PoolHistory, startBff } from '@mgpu/bff';
import { startBenchCluster } from '../lib/cluster.js';
import { heading, machineLoad } from '../lib/report.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100' },
    'retention-minutes': { type: 'string', default: '60' },
  },
  // Other benchmarks' flags (`pnpm bench --minutes 10`) reach this file too: ignored.
  strict: false,
  allowPositionals: true,
});
const NODES = Number(values.nodes);
const RETENTION_MS = Number(values['retention-minutes']) * 60_000;
const INTERVAL_MS = 10_000;
const CARDS = 8;
if (!(NODES > 0) || !(RETENTION_MS > 0)) throw new Error('--nodes, --retention-minutes: numbers');

/** Heap in use after full collections (run under `--expose-gc`, as bench/run.ts does). */
function settledHeap(): number {
  if (globalThis.gc === undefined) throw new Error('run with --expose-gc (bench/run.ts does)');
  let least = Number.POSITIVE_INFINITY;
  // The cluster in this process allocates between readings: the least of three is the ring's floor.
  for (let reading = 0; reading < 3; reading++) {
    globalThis.gc();
    least = Math.min(least, process.memoryUsage().heapUsed);
  }
  return least;
}

const cluster = await startBenchCluster({
  nodes: NODES,
  cardsPerNode: CARDS,
  namespace: 'history',
  log: () => undefined,
});
const bff = await startBff({
  connection: embeddedConnection({ url: cluster.server.url, token: cluster.server.token }),
  port: 0,
  logger: false,
});
try {
  const history = new PoolHistory(bff.context.views, {
    intervalMs: INTERVAL_MS,
    retentionMs: RETENTION_MS,
  });
  const capacity = Math.ceil(RETENTION_MS / INTERVAL_MS);
  let at = Date.now();
  history.sample(at);
  const pools = history.ownSnapshot().samples[0]?.pools.length ?? 0;
  if (pools === 0) throw new Error('the console listed no pools');
  heading(
    `pool history: ${pools} pools, ${capacity} samples (${RETENTION_MS / 60_000} min every ${INTERVAL_MS / 1000} s), filled to 3× its capacity`,
    'heap bounded: flat once the ring is full',
  );
  const before = settledHeap();
  let taken = 1;
  const rows: Record<string, Record<string, number>> = {};
  for (const fill of [0.25, 0.5, 1, 1.5, 2, 3]) {
    for (; taken < Math.round(fill * capacity); taken++) {
      at += INTERVAL_MS;
      history.sample(at);
    }
    const heldSamples = history.ownSnapshot().samples.length;
    const grown = settledHeap() - before;
    rows[`${taken} samples taken`] = {
      'ring holds': heldSamples,
      'heap growth KiB': Math.round(grown / 1024),
      'B per pool sample held': Math.round(grown / Math.max(1, (heldSamples - 1) * pools)),
    };
  }
  console.table(rows);
  const answer = JSON.stringify(history.ownSnapshot());
  console.log(
    `   cluster.history answer with the ring full: ${(answer.length / 1024).toFixed(0)} KiB of JSON`,
  );
  console.log(`   ${machineLoad()} (cluster and BFF in this process)`);
} finally {
  await bff.close();
  await cluster.stop();
}
process.exit(0);
