/**
 * Memory of the embedded API server's store: heap growth per 1,000 pods after creating N
 * pods shaped like the deployment controller's (labels, ownerReference, mGPU requests and
 * scheduler annotations). Pods go through the registry (defaults, validation, watch window)
 * without HTTP, so the figure is the store's own cost. Run with --expose-gc (bench/run.ts
 * does). Figures only, no assertions.
 */
import { startApiServer } from '../../packages/cluster-sim/src/index.js';
import { heading } from '../lib/report.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with --expose-gc (pnpm bench does)');

function heapUsed(): number {
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

function podBody(index: number, ownerUid: string): object {
  return {
    metadata: {
      name: `demo-7d9f8c6b5-${index.toString(36).padStart(5, '0')}`,
      labels: { app: 'demo', 'pod-template-hash': '7d9f8c6b5' },
      annotations: {
        'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
        'vke.volcengine.com/multiple-mgpu-worker': '2',
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'demo-7d9f8c6b5',
          uid: ownerUid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'worker',
          image: 'nginx:1.27',
          resources: {
            requests: {
              'vke.volcengine.com/mgpu-core': '120',
              'vke.volcengine.com/mgpu-memory': '8192',
            },
            limits: {
              'vke.volcengine.com/mgpu-core': '120',
              'vke.volcengine.com/mgpu-memory': '8192',
            },
          },
        },
      ],
    },
  };
}

const rows: Record<string, Record<string, number>> = {};
for (const count of [1_000, 10_000]) {
  const server = await startApiServer({});
  const pods = server.registry.store
    .definitions()
    .find((definition) => definition.plural === 'pods');
  if (!pods) throw new Error('pods missing from the resource table');
  const before = heapUsed();
  for (let i = 0; i < count; i += 1) {
    server.registry.create(pods, 'default', podBody(i, '6f1c2d3e-0000-4000-8000-000000000001'), {
      dryRun: false,
    });
  }
  const after = heapUsed();
  const serialized = JSON.stringify(
    server.registry.get(pods, 'default', 'demo-7d9f8c6b5-00000'),
  ).length;
  rows[`${count} pods`] = {
    'heap delta MiB': Number(((after - before) / 1024 / 1024).toFixed(2)),
    'MiB per 1,000 pods': Number(((after - before) / 1024 / 1024 / (count / 1000)).toFixed(2)),
    'bytes per pod': Math.round((after - before) / count),
    'JSON bytes per pod': serialized,
  };
  await server.close();
}

heading(
  'API server store memory per 1,000 pods (heap delta after creating N pods)',
  'figures only',
);
console.table(rows);
