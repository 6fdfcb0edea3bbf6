/**
 * API conformance, the objects the console keeps in its own namespace (issue 30): Secrets,
 * ConfigMaps and coordination.k8s.io Leases — served, validated, watched, kept across a
 * restart and collected with their namespace as a kube-apiserver does.
 */
import {
  CoordinationV1Api,
  type KubernetesObject,
  V1MicroTime,
  type V1ObjectMeta,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  cluster,
  collectWatch,
  core,
  namespace,
  useConformanceCluster,
} from '../test-support/conformance.js';
import { eventually, expectStatus, statusOf } from './test-cluster.js';

useConformanceCluster();

let coordination: CoordinationV1Api;
beforeAll(() => {
  coordination = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
});

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** The three kinds through their typed client-node calls, so each test runs over all of them. */
interface KindCalls {
  kind: string;
  create(name: string, ns?: string): Promise<{ metadata?: V1ObjectMeta }>;
  read(name: string, ns?: string): Promise<{ metadata?: V1ObjectMeta }>;
  /** Replaces the object with its content changed, keeping the metadata given. */
  replace(name: string, metadata: V1ObjectMeta): Promise<{ metadata?: V1ObjectMeta }>;
}

const KINDS: KindCalls[] = [
  {
    kind: 'Secret',
    create: (name, ns = namespace) =>
      core.createNamespacedSecret({
        namespace: ns,
        body: { metadata: { name }, data: { token: base64('one') } },
      }),
    read: (name, ns = namespace) => core.readNamespacedSecret({ name, namespace: ns }),
    replace: (name, metadata) =>
      core.replaceNamespacedSecret({
        name,
        namespace,
        body: { metadata, data: { token: base64('two') } },
      }),
  },
  {
    kind: 'ConfigMap',
    create: (name, ns = namespace) =>
      core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name }, data: { ring: '[]' } },
      }),
    read: (name, ns = namespace) => core.readNamespacedConfigMap({ name, namespace: ns }),
    replace: (name, metadata) =>
      core.replaceNamespacedConfigMap({
        name,
        namespace,
        body: { metadata, data: { ring: '[1]' } },
      }),
  },
  {
    kind: 'Lease',
    create: (name, ns = namespace) =>
      coordination.createNamespacedLease({
        namespace: ns,
        body: {
          metadata: { name },
          spec: {
            holderIdentity: 'replica-a',
            leaseDurationSeconds: 15,
            renewTime: new V1MicroTime(),
            leaseTransitions: 0,
          },
        },
      }),
    read: (name, ns = namespace) => coordination.readNamespacedLease({ name, namespace: ns }),
    replace: (name, metadata) =>
      coordination.replaceNamespacedLease({
        name,
        namespace,
        body: {
          metadata,
          spec: { holderIdentity: 'replica-b', leaseDurationSeconds: 15, leaseTransitions: 1 },
        },
      }),
  },
];

describe('discovery', () => {
  it('lists secrets and configmaps in v1 and leases in coordination.k8s.io/v1', async () => {
    const core = (await cluster.request('GET', '/api/v1')).json() as {
      resources: { name: string; namespaced: boolean; kind: string }[];
    };
    expect(core.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'secrets', kind: 'Secret', namespaced: true }),
        expect.objectContaining({ name: 'configmaps', kind: 'ConfigMap', namespaced: true }),
      ]),
    );
    const groups = (await cluster.request('GET', '/apis')).json() as {
      groups: { name: string; preferredVersion: { groupVersion: string } }[];
    };
    expect(groups.groups).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'coordination.k8s.io',
          preferredVersion: expect.objectContaining({ groupVersion: 'coordination.k8s.io/v1' }),
        }),
      ]),
    );
    const coordinationResources = (
      await cluster.request('GET', '/apis/coordination.k8s.io/v1')
    ).json() as { resources: { name: string; namespaced: boolean; kind: string }[] };
    expect(coordinationResources.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'leases', kind: 'Lease', namespaced: true }),
      ]),
    );
  });
});

describe.each(KINDS)('$kind', (calls) => {
  it('creates, reads and updates, and refuses an update from a stale resourceVersion with 409', async () => {
    const name = `${calls.kind.toLowerCase()}-versions`;
    const created = await calls.create(name);
    const read = await calls.read(name);
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    const updated = await calls.replace(name, {
      name,
      resourceVersion: read.metadata?.resourceVersion ?? '',
    });
    expect(updated.metadata?.resourceVersion).not.toBe(read.metadata?.resourceVersion);
    // A second writer still holding the version it read loses: the lease's optimistic lock.
    const stale = await expectStatus(
      calls.replace(name, { name, resourceVersion: read.metadata?.resourceVersion ?? '' }),
    );
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict' });
    const duplicate = await expectStatus(calls.create(name));
    expect(duplicate).toMatchObject({ code: 409, reason: 'AlreadyExists' });
  });

  it('goes with its namespace', async () => {
    const doomed = await cluster.createNamespace('doomed');
    await calls.create('collected', doomed);
    await core.deleteNamespace({ name: doomed });
    // Upstream's namespace controller works through the namespace in its own time.
    await eventually(async () => {
      try {
        await calls.read('collected', doomed);
        return undefined;
      } catch (error) {
        return statusOf(error).code === 404 ? true : undefined;
      }
    }, 60_000);
  });
});

describe('Secret', () => {
  it('defaults the type to Opaque and merges stringData into data without keeping it', async () => {
    const created = await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'string-data' },
        data: { kept: base64('as sent'), replaced: base64('old') },
        stringData: { replaced: 'new', added: 'plain text' },
      },
    });
    expect(created.type).toBe('Opaque');
    expect(created.stringData).toBeUndefined();
    expect(created.data).toEqual({
      kept: base64('as sent'),
      replaced: base64('new'),
      added: base64('plain text'),
    });
  });

  it('refuses data that is not base64 with 400, and a key that is not a file name with 422', async () => {
    const notBase64 = await expectStatus(
      core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: 'not-base64' }, data: { token: 'not base64!' } },
      }),
    );
    expect(notBase64).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(notBase64.message).toContain('illegal base64 data');
    const badKey = await expectStatus(
      core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: 'bad-key' }, data: { 'a/b': base64('x') } },
      }),
    );
    expect(badKey).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(badKey.details?.causes?.[0]?.field).toBe('data[a/b]');
  });

  it('keeps its type and, once immutable, its data', async () => {
    const created = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'sealed' }, immutable: true, data: { key: base64('v1') } },
    });
    const changed = await expectStatus(
      core.replaceNamespacedSecret({
        name: 'sealed',
        namespace,
        body: { ...created, data: { key: base64('v2') } },
      }),
    );
    expect(changed).toMatchObject({ code: 422, reason: 'Invalid' });
    const retyped = await expectStatus(
      core.replaceNamespacedSecret({
        name: 'sealed',
        namespace,
        body: { ...created, type: 'kubernetes.io/basic-auth' },
      }),
    );
    expect(retyped).toMatchObject({ code: 422, reason: 'Invalid' });
  });
});

describe('Lease', () => {
  it('keeps holder, times and transitions as written, and refuses a duration that is not positive', async () => {
    const renewTime = new V1MicroTime();
    await coordination.createNamespacedLease({
      namespace,
      body: {
        metadata: { name: 'held' },
        spec: {
          holderIdentity: 'host_1',
          leaseDurationSeconds: 15,
          acquireTime: renewTime,
          renewTime,
          leaseTransitions: 3,
        },
      },
    });
    const read = await coordination.readNamespacedLease({ name: 'held', namespace });
    expect(read.spec).toMatchObject({
      holderIdentity: 'host_1',
      leaseDurationSeconds: 15,
      leaseTransitions: 3,
    });
    // MicroTime: microseconds on the wire, the same instant back.
    expect(Date.parse(String(read.spec?.renewTime))).toBe(renewTime.getTime());
    const zero = await expectStatus(
      coordination.createNamespacedLease({
        namespace,
        body: { metadata: { name: 'zero' }, spec: { leaseDurationSeconds: 0 } },
      }),
    );
    expect(zero).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(zero.details?.causes?.[0]?.field).toBe('spec.leaseDurationSeconds');
  });

  it('is watched: a renewal arrives as MODIFIED', async () => {
    const created = await coordination.createNamespacedLease({
      namespace,
      body: { metadata: { name: 'watched' }, spec: { holderIdentity: 'a' } },
    });
    const events = await collectWatch(
      `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      {
        resourceVersion: created.metadata?.resourceVersion ?? '',
        fieldSelector: 'metadata.name=watched',
      },
      async () => {
        await coordination.replaceNamespacedLease({
          name: 'watched',
          namespace,
          body: { metadata: created.metadata ?? {}, spec: { holderIdentity: 'b' } },
        });
      },
      (seen) => seen.some((event) => event.type === 'MODIFIED'),
    );
    const modified = events.find((event) => event.type === 'MODIFIED')?.object as
      | (KubernetesObject & { spec?: { holderIdentity?: string } })
      | undefined;
    expect(modified?.spec?.holderIdentity).toBe('b');
  });
});

describe('kubectl', () => {
  it('creates a secret and a configmap (protobuf), applies a lease, and prints each kind', async () => {
    const ok = async (args: string[], input?: string): Promise<string> => {
      const result = await cluster.kubectl(['-n', namespace, ...args], input);
      if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    await ok(['create', 'secret', 'generic', 'kubectl-secret', '--from-literal=key=value']);
    await ok(['create', 'configmap', 'kubectl-config', '--from-literal=a=1', '--from-literal=b=2']);
    const lease = `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: kubectl-lease}
spec: {holderIdentity: console-0, leaseDurationSeconds: 15}
`;
    expect(await ok(['apply', '-f', '-'], lease)).toContain(
      'lease.coordination.k8s.io/kubectl-lease created',
    );
    expect(await ok(['apply', '-f', '-'], lease)).toContain('unchanged');
    expect(await ok(['get', 'secret', 'kubectl-secret'])).toMatch(
      /^NAME\s+TYPE\s+DATA\s+AGE\nkubectl-secret\s+Opaque\s+1\s/,
    );
    expect(await ok(['get', 'cm', 'kubectl-config'])).toMatch(
      /^NAME\s+DATA\s+AGE\nkubectl-config\s+2\s/,
    );
    expect(await ok(['get', 'leases', 'kubectl-lease'])).toMatch(
      /^NAME\s+HOLDER\s+AGE\nkubectl-lease\s+console-0\s/,
    );
    const yaml = await ok(['get', 'secret', 'kubectl-secret', '-o', 'yaml']);
    expect(yaml).toContain(`key: ${base64('value')}`);
    expect(yaml).toContain('type: Opaque');
  });
});

describe('state file', () => {
  it('keeps secrets, configmaps and leases across a restart', async () => {
    if (!cluster.isSim) return;
    const kept = await Promise.all(KINDS.map((calls) => calls.create('kept-across-restart')));
    await cluster.restart();
    for (const [index, calls] of KINDS.entries()) {
      const restored = await calls.read('kept-across-restart');
      expect(restored.metadata?.uid).toBe(kept[index]?.metadata?.uid);
    }
  });
});
