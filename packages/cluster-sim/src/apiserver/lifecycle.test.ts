/**
 * The server's own lifecycle (sim only): close ends every watch so the process can exit, the
 * state file is written whole and read back, a watch honours timeoutSeconds, Events expire
 * after their TTL.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { kubeConfigFor } from '../embedded.js';
import { startApiServer } from './api-server.js';
import { UNSCHEDULED } from './test-cluster.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mgpu-apiserver-lifecycle-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const pod = (name: string) => ({
  metadata: { name },
  spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx:1.27' }] },
});

describe('server lifecycle', () => {
  it('ends open watches on close and writes the state file whole', async () => {
    const stateFile = join(await workDir(), 'state.json');
    const server = await startApiServer({ stateFile });
    const kubeConfig = kubeConfigFor(server);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const ended = new Promise<void>((resolve) => {
      void new Watch(kubeConfig).watch(
        '/api/v1/pods',
        {},
        () => undefined,
        () => resolve(),
      );
    });
    await core.createNamespacedPod({ namespace: 'default', body: pod('kept') });
    await server.close();
    await ended;
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as {
      resourceVersion: string;
      objects: { kind: string; metadata: { name: string } }[];
    };
    expect(
      saved.objects.some((object) => object.kind === 'Pod' && object.metadata.name === 'kept'),
    ).toBe(true);
    expect(await readdir(join(stateFile, '..'))).toEqual(['state.json']);

    const again = await startApiServer({ stateFile });
    cleanups.push(() => again.close());
    const restored = await kubeConfigFor(again)
      .makeApiClient(CoreV1Api)
      .readNamespacedPod({ name: 'kept', namespace: 'default' });
    expect(restored.metadata?.resourceVersion).toBeTruthy();
  });

  it('collects, after a restart, a pod whose owner is gone from the state file', async () => {
    const stateFile = join(await workDir(), 'state.json');
    const orphan = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'orphan',
        namespace: 'default',
        uid: 'pod-uid',
        resourceVersion: '7',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: 'gone-uid' },
        ],
      },
      spec: pod('orphan').spec,
    };
    await writeFile(stateFile, JSON.stringify({ resourceVersion: '7', objects: [orphan] }));
    const server = await startApiServer({ stateFile });
    cleanups.push(() => server.close());
    const core = kubeConfigFor(server).makeApiClient(CoreV1Api);
    // The collector runs after start-up, like kube-controller-manager's after a restart.
    let left = 1;
    for (let attempt = 0; attempt < 100 && left > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = (await core.listNamespacedPod({ namespace: 'default' })).items.length;
    }
    expect(left).toBe(0);
  });

  it('refuses to start on a state file that is not one', async () => {
    const stateFile = join(await workDir(), 'state.json');
    await writeFile(stateFile, '{"not":"a state file"}');
    await expect(startApiServer({ stateFile })).rejects.toThrow(/not a cluster state file/);
  });

  it('keeps objects of kinds it does not serve across restarts, and says so naming the file', async () => {
    const stateFile = join(await workDir(), 'state.json');
    // A copy of a real cluster's store: PersistentVolumeClaims, a kind this cluster does not serve.
    const claims = Array.from({ length: 3 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `data-${i}`, namespace: 'default', resourceVersion: String(i + 2) },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${i + 1}Gi` } } },
    }));
    await writeFile(stateFile, JSON.stringify({ resourceVersion: '5', objects: claims }));
    const notices: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      notices.push(String(chunk));
      return true;
    });
    cleanups.push(async () => stderr.mockRestore());
    const server = await startApiServer({ stateFile });
    await kubeConfigFor(server)
      .makeApiClient(CoreV1Api)
      .createNamespacedPod({ namespace: 'default', body: pod('written-after') });
    await server.close();
    // The second start reads the file the first one wrote: the claims must have survived it.
    await (await startApiServer({ stateFile })).close();
    stderr.mockRestore();
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as {
      objects: { kind: string; metadata: { name: string } }[];
    };
    expect(saved.objects.filter((object) => object.kind === 'PersistentVolumeClaim')).toEqual(
      claims,
    );
    expect(saved.objects.some((object) => object.metadata.name === 'written-after')).toBe(true);
    const unserved = notices.filter((line) => line.includes('does not serve'));
    expect(unserved).toHaveLength(2);
    for (const line of unserved) {
      expect(line).toContain(stateFile);
      expect(line).toContain('3 PersistentVolumeClaim');
    }
  });

  it.each([
    ['null', null, /state\.json: objects\[1\] is null, not an object/],
    ['an entry without a kind', { metadata: { name: 'x' } }, /objects\[1\] has no apiVersion/],
    ['a Pod without a name', { apiVersion: 'v1', kind: 'Pod', metadata: {} }, /objects\[1\]/],
  ])(
    'refuses to start on a state file with %s, naming the file and the entry',
    async (_, entry, message) => {
      const stateFile = join(await workDir(), 'state.json');
      const kept = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'kept', namespace: 'default' },
      };
      const text = JSON.stringify({ resourceVersion: '3', objects: [kept, entry] });
      await writeFile(stateFile, text);
      await expect(startApiServer({ stateFile })).rejects.toThrow(message);
      // Refused, not rewritten: the operator's file is as it was.
      expect(await readFile(stateFile, 'utf8')).toBe(text);
    },
  );

  it('ends a watch after timeoutSeconds', async () => {
    const server = await startApiServer({});
    cleanups.push(() => server.close());
    // The watch's done callback firing (within the test timeout) is the behaviour under test.
    const ended = await new Promise<boolean>((resolve) => {
      void new Watch(kubeConfigFor(server)).watch(
        '/api/v1/namespaces',
        { timeoutSeconds: 1 },
        () => undefined,
        () => resolve(true),
      );
    });
    expect(ended).toBe(true);
  });

  it('deletes an Event its TTL after its last write, as watchers see, and nothing else', async () => {
    const ttlMs = 800;
    const server = await startApiServer({ eventTtlMs: ttlMs });
    cleanups.push(() => server.close());
    const kubeConfig = kubeConfigFor(server);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    const event = (name: string) => ({
      metadata: { name },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'kept' },
      reason: 'Scheduled',
      message: name,
      type: 'Normal',
    });
    const deletedAt = new Map<string, number>();
    const bothGone = new Promise<void>((resolve) => {
      void new Watch(kubeConfig).watch(
        '/api/v1/namespaces/default/events',
        {},
        (type: string, object: { metadata: { name: string } }) => {
          if (type !== 'DELETED') return;
          deletedAt.set(object.metadata.name, Date.now());
          if (deletedAt.size === 2) resolve();
        },
        () => undefined,
      );
    });
    await core.createNamespacedPod({ namespace: 'default', body: pod('kept') });
    const createdAt = Date.now();
    await core.createNamespacedEvent({ namespace: 'default', body: event('once') });
    await core.createNamespacedEvent({ namespace: 'default', body: event('again') });
    await new Promise((resolve) => setTimeout(resolve, ttlMs / 2));
    // A write renews the lease, as etcd's does on every update of an Event.
    const renewedAt = Date.now();
    await core.replaceNamespacedEvent({
      name: 'again',
      namespace: 'default',
      body: { ...event('again'), count: 2 },
    });

    await bothGone;
    const once = deletedAt.get('once') ?? 0;
    const again = deletedAt.get('again') ?? 0;
    expect(once - createdAt).toBeGreaterThanOrEqual(ttlMs);
    expect(again - renewedAt).toBeGreaterThanOrEqual(ttlMs);
    expect(again).toBeGreaterThan(once);
    expect((await core.listNamespacedEvent({ namespace: 'default' })).items).toEqual([]);
    expect(
      (await core.readNamespacedPod({ name: 'kept', namespace: 'default' })).metadata?.name,
    ).toBe('kept');
  });
});
