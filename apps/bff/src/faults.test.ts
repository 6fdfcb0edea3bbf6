/**
 * Faults between the BFF and the Kubernetes API: a restart mid-watch, watch versions that
 * expired (410 Gone), a slow API server, node lists that fail (writes must not skip the
 * cluster-aware rules) and a refused headless Service (no half-made StatefulSet). These need
 * control of the API server, so they run on the embedded one only; the rest of the suite also
 * runs against real Kubernetes.
 */
import { mkdtemp } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { appRouter, ClusterClient, createCallerFactory, embeddedConnection } from '@mgpu/api';
import { kubeConfigForServer } from '@mgpu/kube-client';
import type { AllocationEvent } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from './server.js';
import {
  eventually,
  ruleErrorsOf,
  seedRequest,
  subscribe,
  uniqueName,
} from './test-support/bff-harness.js';
import {
  type EmbeddedCluster,
  startApiServer,
  startEmbeddedCluster,
} from './test-support/embedded-cluster.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const onSim = !onRealTier();

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
    const kubeConfig = kubeConfigForServer(server);
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

/**
 * An embedded cluster and a BFF that reaches it only through the proxy `proxyOf` puts in front
 * of it; `before` sets the proxy up before the BFF's first call.
 */
async function bffBehind<P extends { url: string; close(): Promise<void> }>(
  proxyOf: (target: URL) => Promise<P>,
  before: (proxy: P) => void = () => {},
) {
  const cluster = await startEmbeddedCluster({ log: () => {} });
  cleanups.push(() => cluster.stop());
  const proxy = await proxyOf(new URL(cluster.url));
  cleanups.push(() => proxy.close());
  before(proxy);
  const bff = await startBff({
    connection: embeddedConnection({ url: proxy.url, token: cluster.token }),
    port: 0,
    logger: false,
  });
  cleanups.push(() => bff.close());
  return { cluster, proxy, bff, caller: createCallerFactory(appRouter)(bff.context) };
}

describe.runIf(onSim)('a slow API server', () => {
  it('turns /readyz to 503 with a reason, keeps answering from the caches, and recovers', async () => {
    const { proxy, bff } = await bffBehind(slowProxy);
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

/**
 * An HTTP proxy in front of the API server that answers the requests `refuse` picks with a
 * Status of the code it returns (an API server failing, or RBAC saying no), passing the rest
 * on, streams included; `seen` lists every request as `METHOD path?query`.
 */
async function refusingProxy(target: URL) {
  const state: { refuse?: (method: string, url: URL) => number | undefined } = {};
  const seen: string[] = [];
  const server = http.createServer((request, response) => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', target);
    seen.push(`${method} ${url.pathname}${url.search}`);
    const code = state.refuse?.(method, url);
    if (code !== undefined) {
      request.resume();
      response.writeHead(code, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `${method} ${url.pathname} refused by the test's proxy`,
          reason: code === 403 ? 'Forbidden' : 'InternalError',
          code,
        }),
      );
      return;
    }
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        // A watch's headers go out at once, as the API server sent them, not with its first event.
        response.flushHeaders();
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    // A watch the client closes ends upstream too.
    response.on('close', () => upstream.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    state,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A container without GPU: only the nodes' pod slots bound how many of its pods run. */
const cpuOnly = { name: 'web', image: 'nginx:1.27', gpu: { type: 'none' as const } };

describe.runIf(onSim)('writes before the BFF has seen the nodes', () => {
  it('are never judged without the cluster-aware rules: refused with a retryable 503, then judged', {
    timeout: 180_000,
  }, async () => {
    const listsNodes = (method: string, url: URL) =>
      method === 'GET' &&
      url.pathname === '/api/v1/nodes' &&
      url.searchParams.get('watch') !== 'true';
    // The API server fails every list of the nodes: the BFF starts, its informer retrying.
    const { cluster, proxy, caller } = await bffBehind(refusingProxy, (proxy) => {
      proxy.state.refuse = (method, url) => (listsNodes(method, url) ? 500 : undefined);
    });
    const apps = kubeConfigForServer(cluster).makeApiClient(AppsV1Api);

    const name = uniqueName('unsynced');
    const billion = seedRequest(name, { replicas: 1_000_000_000, containers: [cpuOnly] });
    const refused = await ruleErrorsOf(caller.workload.create({ request: billion, lang: 'en' }));
    expect(refused.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.errors.map((error) => error.rule)).toEqual(['cluster-not-synced']);
    expect(refused.errors[0]?.fix).toContain('again');
    await expect(apps.readNamespacedDeployment({ namespace: 'default', name })).rejects.toThrow();
    // Scale and update wait for the nodes too; a request its own rules refuse is told so at once.
    for (const write of [
      caller.workload.scale({ namespace: 'default', name, replicas: 2_147_483_647 }),
      caller.workload.update({
        namespace: 'default',
        name,
        resourceVersion: '1',
        request: billion,
      }),
    ])
      expect((await ruleErrorsOf(write)).errors.map((error) => error.rule)).toEqual([
        'cluster-not-synced',
      ]);
    // The previews say they could not check rather than guess that every replica waits.
    for (const preview of [
      caller.workload.preview({ request: seedRequest(name), lang: 'en' }),
      caller.workload.scalePreview({ namespace: 'default', name, replicas: 2, lang: 'en' }),
    ])
      expect((await ruleErrorsOf(preview)).errors.map((error) => error.rule)).toEqual([
        'cluster-not-synced',
      ]);
    const system = await ruleErrorsOf(
      caller.workload.create({ request: seedRequest(name, { namespace: 'kube-system' }) }),
    );
    expect(system.errors.map((error) => error.rule)).toEqual(['namespace-reserved']);

    // The API server lists the nodes again: the same create now meets the cluster's bound.
    proxy.state.refuse = undefined;
    const judged = await eventually(async () => {
      const answer = await ruleErrorsOf(caller.workload.create({ request: billion, lang: 'en' }));
      return answer.code === 'SERVICE_UNAVAILABLE' ? undefined : answer;
    }, 'the nodes listed');
    expect(judged.errors.map((error) => error.rule)).toEqual(['replicas-exceed-cluster']);
    await expect(apps.readNamespacedDeployment({ namespace: 'default', name })).rejects.toThrow();
  });
});

describe.runIf(onSim)('a StatefulSet whose headless Service the API server refuses', () => {
  const start = async () => {
    const { cluster, proxy, caller } = await bffBehind(refusingProxy);
    const admin = kubeConfigForServer(cluster);
    return {
      proxy,
      caller,
      apps: admin.makeApiClient(AppsV1Api),
      core: admin.makeApiClient(CoreV1Api),
    };
  };
  const createsService = (method: string, url: URL) =>
    method === 'POST' && url.pathname.endsWith('/services');

  it('in its dry run: nothing is created', async () => {
    const { proxy, caller, apps } = await start();
    // RBAC that lets the operator make StatefulSets but not Services says no to the dry run too.
    proxy.state.refuse = (method, url) => (createsService(method, url) ? 403 : undefined);
    const name = uniqueName('sts-dry');
    const refused = await ruleErrorsOf(
      caller.workload.create({ request: seedRequest(name, { kind: 'StatefulSet' }), lang: 'en' }),
    );
    expect(refused.errors.map((error) => error.rule)).toEqual(['forbidden']);
    const statefulSetCreates = proxy.seen.filter(
      (line) => line.startsWith('POST') && line.includes('/statefulsets'),
    );
    expect(statefulSetCreates.length).toBeGreaterThan(0);
    expect(statefulSetCreates.every((line) => line.includes('dryRun=All'))).toBe(true);
    await expect(apps.readNamespacedStatefulSet({ namespace: 'default', name })).rejects.toThrow();
  });

  it('after its dry run passed: the StatefulSet is deleted again, and its pods go', async () => {
    const { proxy, caller, apps, core } = await start();
    proxy.state.refuse = (method, url) =>
      createsService(method, url) && url.searchParams.get('dryRun') !== 'All' ? 500 : undefined;
    const name = uniqueName('sts-half');
    const refused = await ruleErrorsOf(
      caller.workload.create({
        request: seedRequest(name, { kind: 'StatefulSet', replicas: 2 }),
        lang: 'en',
      }),
    );
    expect(refused.errors.map((error) => error.rule)).toEqual(['cluster-unavailable']);
    expect(
      proxy.seen.some((line) => line.startsWith(`POST`) && line.includes('/statefulsets?')),
    ).toBe(true);
    await expect(apps.readNamespacedStatefulSet({ namespace: 'default', name })).rejects.toThrow();
    await expect(core.readNamespacedService({ namespace: 'default', name })).rejects.toThrow();
    await eventually(async () => {
      const pods = await core.listNamespacedPod({
        namespace: 'default',
        labelSelector: `app.kubernetes.io/name=${name}`,
      });
      return pods.items.length === 0;
    }, "the rolled-back StatefulSet's pods gone");
  });
});
