/**
 * What `--state-file` durability costs a create: the API server writes the snapshot (temp,
 * fsync, rename, fsync of the directory) before it answers a write (issue 14). Pod creates,
 * one at a time and 16 in parallel, against a server without a state file and one with it, in
 * the same run; median and p95 of each and the ratio. Figures only, no assertions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorizationFor, startApiServer } from '../../packages/cluster-sim/src/index.js';
import { heading, median, percentile } from '../lib/report.js';

const CREATES = 200;
const PARALLEL = 16;

const pod = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] },
  });

async function measure(stateFile: string | undefined, parallel: number): Promise<number[]> {
  const server = await startApiServer(stateFile ? { stateFile } : {});
  const samples: number[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < CREATES) {
          const name = `bench-${next++}`;
          const started = performance.now();
          const response = await fetch(`${server.url}/api/v1/namespaces/default/pods`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...authorizationFor(server) },
            body: pod(name),
          });
          await response.text();
          if (response.status !== 201) throw new Error(`create ${name}: ${response.status}`);
          samples.push(performance.now() - started);
        }
      }),
    );
  } finally {
    await server.close();
  }
  return samples;
}

heading('cluster-sim: pod create latency with and without --state-file', 'figures only');
const dir = await mkdtemp(join(tmpdir(), 'mgpu-bench-state-'));
try {
  for (const parallel of [1, PARALLEL]) {
    const memory = await measure(undefined, parallel);
    const durable = await measure(join(dir, `state-${parallel}.json`), parallel);
    const line = (label: string, samples: number[]) =>
      `${label.padEnd(18)} median ${median(samples).toFixed(2)} ms  p95 ${percentile(samples, 95).toFixed(2)} ms`;
    console.log(`${parallel} in flight, ${CREATES} creates`);
    console.log(`  ${line('memory only', memory)}`);
    console.log(`  ${line('--state-file', durable)}`);
    console.log(
      `  ratio (state file / memory): median ${(median(durable) / median(memory)).toFixed(1)}x, p95 ${(percentile(durable, 95) / percentile(memory, 95)).toFixed(1)}x`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
