/**
 * The informer against a scripted API server: what it asks for (bookmarks), how it recovers
 * (a failed list is retried; 410 Gone on a watch is a re-list announced as a resync) and that
 * controller handlers and listeners see the same changes, after the indexes took them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { type InformerEvent, SharedInformer } from './informer.js';
import { SharedInformerFactory } from './informer-factory.js';

interface Scripted {
  kubeConfig: KubeConfig;
  /** Every request's path and query, in order. */
  requests: URL[];
  /** Answers the next list; a number is an HTTP status to fail it with. */
  lists: (V1Pod[] | number)[];
  /** The open watch responses, to write events to or end. */
  watches: http.ServerResponse[];
  close(): Promise<void>;
}

const servers: Scripted[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function scriptedApiServer(): Promise<Scripted> {
  const requests: URL[] = [];
  const lists: (V1Pod[] | number)[] = [];
  const watches: http.ServerResponse[] = [];
  let version = 1;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push(url);
    if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      watches.push(response);
      return;
    }
    const next = lists.shift() ?? [];
    if (typeof next === 'number') {
      response.writeHead(next, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', code: next, reason: 'InternalError' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(version++) },
        items: next,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: 'scripted',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        // client-node refuses plain HTTP unless TLS checking is off; this server has no TLS.
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'scripted' }],
    contexts: [{ name: 'scripted', cluster: 'scripted', user: 'scripted' }],
    currentContext: 'scripted',
  });
  const scripted: Scripted = {
    kubeConfig,
    requests,
    lists,
    watches,
    close: async () => {
      for (const watch of watches) watch.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(scripted);
  return scripted;
}

const pod = (name: string, resourceVersion: string, controllerUid?: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'default',
    resourceVersion,
    ...(controllerUid === undefined
      ? {}
      : {
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'rs',
              uid: controllerUid,
              controller: true,
            },
          ],
        }),
  },
});

async function until(what: string, ready: () => boolean): Promise<void> {
  for (let tries = 0; !ready(); tries++) {
    if (tries > 200) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const names = (pods: readonly V1Pod[]) => pods.map((p) => p.metadata?.name ?? '').sort();

function podInformer(api: Scripted) {
  const core = api.kubeConfig.makeApiClient(CoreV1Api);
  return new SharedInformer<V1Pod>(
    api.kubeConfig,
    '/api/v1/pods',
    () => core.listPodForAllNamespaces(),
    { indexControllers: true },
  );
}

describe('the shared informer', () => {
  it('lists, then watches from the list with bookmarks asked for', async () => {
    const api = await scriptedApiServer();
    api.lists.push([pod('a', '1', 'rs-1')]);
    const informer = podInformer(api);
    try {
      await informer.start();
      expect(informer.health.synced).toBe(true);
      expect(names(informer.list())).toEqual(['a']);
      expect(names(informer.controlledBy('rs-1'))).toEqual(['a']);
      const watch = api.requests.find((url) => url.searchParams.get('watch') === 'true');
      expect(watch?.searchParams.get('allowWatchBookmarks')).toBe('true');
      expect(watch?.searchParams.get('resourceVersion')).toBe('1');
    } finally {
      await informer.stop();
    }
  });

  it('retries a failed first list until it gets one', async () => {
    const api = await scriptedApiServer();
    api.lists.push(500, [pod('a', '1')]);
    const informer = podInformer(api);
    try {
      await informer.start();
      expect(informer.health.synced).toBe(false);
      expect(informer.health.lastError).toBeDefined();
      await until('the retried list', () => informer.health.synced);
      expect(informer.health.restarts).toBeGreaterThan(0);
      expect(informer.health.lastError).toBeUndefined();
      expect(names(informer.list())).toEqual(['a']);
    } finally {
      await informer.stop();
    }
  });

  it('waits for its first list when asked (bounded), and says whether it came', async () => {
    const api = await scriptedApiServer();
    api.lists.push(500, 500, 500, 500, 500, 500, 500, 500, 500, 500);
    const informer = podInformer(api);
    try {
      await informer.start();
      // Every list fails for a while: a short wait ends unsynced rather than hanging.
      expect(await informer.waitForSync(50)).toBe(false);
      api.lists.splice(0, api.lists.length, [pod('a', '1')]);
      expect(await informer.waitForSync(60_000)).toBe(true);
      expect(names(informer.list())).toEqual(['a']);
      // Once listed, it answers at once.
      expect(await informer.waitForSync(0)).toBe(true);
    } finally {
      await informer.stop();
    }
  });

  it('re-lists on 410 Gone and announces it, with handlers and listeners seeing each change', async () => {
    const api = await scriptedApiServer();
    api.lists.push([pod('a', '1', 'rs-1'), pod('b', '1', 'rs-1')]);
    const informer = podInformer(api);
    const events: InformerEvent<V1Pod>['type'][] = [];
    const handled: string[] = [];
    informer.subscribe((event) => events.push(event.type));
    informer.addHandlers({
      add: (object) => handled.push(`add ${object.metadata?.name}`),
      update: (object) => handled.push(`update ${object.metadata?.name}`),
      // The index has already dropped the pod when its handler runs.
      delete: (object) =>
        handled.push(`delete ${object.metadata?.name} ${informer.controlledBy('rs-1').length}`),
    });
    try {
      await informer.start();
      await until('the watch', () => api.watches.length === 1);
      api.lists.push([pod('a', '5', 'rs-1'), pod('c', '5')]);
      const expired = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } };
      api.watches[0]?.end(`${JSON.stringify(expired)}\n`);
      await until('the second watch', () => api.watches.length === 2);
      expect(names(informer.list())).toEqual(['a', 'c']);
      expect(names(informer.controlledBy('rs-1'))).toEqual(['a']);
      expect(handled).toEqual(['add a', 'add b', 'delete b 1', 'update a', 'add c']);
      expect(events.filter((type) => type === 'resync')).toHaveLength(2);
      const lists = api.requests.filter((url) => url.searchParams.get('watch') !== 'true');
      expect(lists).toHaveLength(2);
    } finally {
      await informer.stop();
    }
  });

  it('is one per resource in a factory, and a controller joining late hears every cached object', async () => {
    const api = await scriptedApiServer();
    api.lists.push([pod('a', '1'), pod('b', '2')]);
    const informers = new SharedInformerFactory(api.kubeConfig);
    try {
      const pods = informers.pods();
      expect(informers.pods()).toBe(pods);
      await informers.start();
      const heard: string[] = [];
      pods.addHandlers({ add: (object) => heard.push(object.metadata?.name ?? '') });
      expect(heard.sort()).toEqual(['a', 'b']);
      expect(api.requests.filter((url) => url.searchParams.get('watch') !== 'true')).toHaveLength(
        1,
      );
    } finally {
      await informers.stop();
    }
  });
});
