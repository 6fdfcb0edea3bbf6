/**
 * Faults between the BFF and the Kubernetes API: a restart mid-watch, watch versions that
 * expired (410 Gone), and a slow API server. These need control of the API server, so they run
 * on the embedded one only; the rest of the suite also runs against real Kubernetes.
 */
import { mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import {
  type EmbeddedCluster,
  kubeConfigFor,
  startApiServer,
  startEmbeddedCluster,
} from '@mgpu/cluster-sim';
import type { AllocationEvent } from '@mgpu/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterClient } from './cluster/cluster-client.js';
import { embeddedConnection } from './cluster/connection.js';
import { appRouter } from './router.js';
import { type RunningBff, startBff } from './server.js';
import { eventually, seedRequest, subscribe, uniqueName } from './test-support/bff-harness.js';
import { createCallerFactory } from './trpc/init.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const onSim = !process.env.MGPU_TEST_KUBECONFIG;

describe.runIf(onSim)('the API server restarts while dashboards watch', () => {
  it('keeps the allocation stream going: changes before and after the restart all arrive', {
    timeout: 180_000,
  }, async () => {
    const stateFile = join(await mkdtemp(join(tmpdir(), 'mgpu-bff-fault-')), 'state.json');
    let cluster: EmbeddedCluster = await startEmbeddedCluster({ stateFile, log: () => {} });
    const port = cluster.port;
    cleanups.push(() => cluster.stop());
    const bff: RunningBff = await startBff({
      connection: embeddedConnection(cluster),
      port: 0,
      logger: false,
    });
    cleanups.push(() => bff.close());
    const caller = createCallerFactory(appRouter)(bff.context);

    const watch = subscribe(`${bff.url}/trpc/allocations.watch?input=${encodeURIComponent('{}')}`);
    cleanups.push(async () => watch.source.close());
    const recordsOf = (workload: string) => {
      const latest = new Map<string, AllocationEvent['records'][number] | undefined>();
      for (const { event } of watch.messages) {
        for (const record of event.records) {
          if (record.workload === workload)
            latest.set(record.id, event.type === 'delete' ? undefined : record);
        }
      }
      return [...latest.values()].filter((record) => record !== undefined);
    };

    const before = uniqueName('before');
    await caller.workload.create({
      request: seedRequest(before),
      clientRequestId: before,
      lang: 'en',
    });
    await eventually(() => recordsOf(before).length === 2, 'the first workload on the stream');

    await cluster.stop();
    // Restarted as with the same flags: the same port, state file and token.
    cluster = await startEmbeddedCluster({ port, stateFile, token: cluster.token, log: () => {} });

    const after = uniqueName('after');
    await eventually(async () => {
      try {
        await caller.workload.create({
          request: seedRequest(after),
          clientRequestId: after,
          lang: 'en',
        });
        return true;
      } catch {
        return false;
      }
    }, 'the API server to take a create again');
    await caller.workload.delete({ namespace: 'default', name: before });
    // Generous: after a restart the informers back off, then the new workload is scheduled.
    await eventually(
      () => recordsOf(after).length === 2 && recordsOf(before).length === 0,
      'both changes on the same stream',
      1200,
    );
    expect(bff.context.cluster.pods.health.restarts).toBeGreaterThan(0);
  });
});

describe.runIf(onSim)('watch versions that expired', () => {
  it('re-lists after 410 Gone and ends with every object', async () => {
    const stateFile = join(await mkdtemp(join(tmpdir(), 'mgpu-bff-410-')), 'state.json');
    let server = await startApiServer({ stateFile, watchWindow: 3 });
    const port = server.port;
    cleanups.push(() => server.close());
    const kubeConfig = kubeConfigFor(server);
    const client = new ClusterClient(kubeConfig);
    cleanups.push(() => client.stopInformers());
    await client.pods.start();
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const pod = (name: string): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
    });
    await core.createNamespacedPod({ namespace: 'default', body: pod('first') });
    await eventually(() => client.pods.get('first', 'default'), 'the first pod');

    // While the informer is away, far more changes than the watch window keeps.
    await server.close();
    server = await startApiServer({ port, stateFile, watchWindow: 3, token: server.token });
    for (let index = 0; index < 12; index++) {
      await core.createNamespacedPod({ namespace: 'default', body: pod(`later-${index}`) });
    }
    await eventually(() => client.pods.list().length === 13, 'all 13 pods after the re-list');
    expect(client.pods.health.restarts).toBeGreaterThan(0);
  });
});

/** A TCP proxy in front of the API server that holds every connection's first bytes for `delayMs`. */
async function slowProxy(target: URL) {
  const state = { delayMs: 0 };
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    const release = () => {
      client.pipe(upstream);
      upstream.pipe(client);
    };
    client.pause();
    setTimeout(() => {
      client.resume();
      release();
    }, state.delayMs);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    state,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe.runIf(onSim)('a slow API server', () => {
  it('turns /readyz to 503 with a reason, keeps answering from the caches, and recovers', async () => {
    const cluster = await startEmbeddedCluster({ log: () => {} });
    cleanups.push(() => cluster.stop());
    const proxy = await slowProxy(new URL(cluster.url));
    cleanups.push(() => proxy.close());
    const bff = await startBff({
      connection: embeddedConnection({ url: proxy.url, token: cluster.token }),
      port: 0,
      logger: false,
    });
    cleanups.push(() => bff.close());
    expect((await fetch(`${bff.url}/readyz`)).status).toBe(200);

    proxy.state.delayMs = 4000;
    const slow = await fetch(`${bff.url}/readyz`);
    expect(slow.status).toBe(503);
    expect(((await slow.json()) as { reason: string }).reason).toContain('timed out');
    // Reads that the informers already hold do not wait for the API server.
    const models = await fetch(`${bff.url}/trpc/gpu.models`);
    expect(models.status).toBe(200);

    proxy.state.delayMs = 0;
    await eventually(async () => (await fetch(`${bff.url}/readyz`)).status === 200, 'ready again');
  });
});
