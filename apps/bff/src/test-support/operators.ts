/**
 * Operators for tests, built as per-user auth will build them (`{ username, groups, kubeConfig }`
 * with the operator's own bearer token as the only credential), without the sign-in code.
 */
import {
  CoreV1Api,
  type KubeConfig,
  RbacAuthorizationV1Api,
  type RbacV1Subject,
} from '@kubernetes/client-node';
import {
  type AppCaller,
  type BffContext,
  type ClusterClient,
  createCaller,
  type Operator,
  operatorKubeConfig,
} from '@mgpu/api';
import type { AllocationEvent, AllocationRecord } from '@mgpu/shared';
import {
  type BffHarness,
  eventually,
  seedRequest,
  startBffTest,
  trackedData,
  uniqueName,
} from './bff-harness.js';

/** Each operator's cluster client, as the server keeps one per session. */
const operatorClients = new WeakMap<Operator, ClusterClient>();

/**
 * The router called as `operator` would call it through a signed-in session: their RBAC decides
 * what they see, and their own identity makes every API call (a create, a dry run).
 */
export function operatorCaller(
  context: BffContext,
  operator: Operator,
  signal?: AbortSignal,
): AppCaller {
  let cluster = operatorClients.get(operator);
  if (cluster === undefined) {
    cluster = context.cluster.forOperator(operator.kubeConfig);
    operatorClients.set(operator, cluster);
  }
  return createCaller({ ...context, cluster, operator }, signal ? { signal } : {});
}

/** `allocations.watch` as `operator`, applied as the dashboard applies it: what they hold now. */
export async function watchAllocationsAs(context: BffContext, operator: Operator) {
  const abort = new AbortController();
  const records = new Map<string, AllocationRecord>();
  const stream = await operatorCaller(context, operator, abort.signal).allocations.watch({});
  const done = (async () => {
    try {
      for await (const item of stream) {
        const event = trackedData<AllocationEvent>(item);
        if (event.type === 'snapshot') records.clear();
        for (const record of event.records)
          if (event.type === 'delete') records.delete(record.id);
          else records.set(record.id, record);
      }
    } catch (error) {
      if (!(error instanceof Error && error.name === 'AbortError')) throw error;
    }
  })();
  return {
    namespaces: () => new Set([...records.values()].map((record) => record.namespace)),
    async stop() {
      abort.abort();
      await done;
    },
  };
}

export function operatorWithToken(
  cluster: KubeConfig,
  token: string,
  username: string,
  groups: readonly string[] = [],
): Operator {
  return { username, groups, kubeConfig: operatorKubeConfig(cluster, token) };
}

/** A service account the test owns, its operator (token from the TokenRequest API) and bindings. */
export interface ServiceAccountOperator {
  operator: Operator;
  /** Its bearer token, for a sign-in or a script's request over HTTP. */
  token: string;
  /** Binds `clusterRole` to this account in `namespace`, or cluster-wide without one; returns the unbind. */
  bind(clusterRole: string, namespace?: string): Promise<() => Promise<void>>;
  delete(): Promise<void>;
}

/** Creates service account `name` in `namespace` as `admin` and takes a one-hour token for it. */
export async function serviceAccountOperator(
  admin: KubeConfig,
  namespace: string,
  name: string,
): Promise<ServiceAccountOperator> {
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`no token for service account ${namespace}/${name}`);
  const subject: RbacV1Subject = { kind: 'ServiceAccount', name, namespace };
  const operator = operatorWithToken(admin, token, `system:serviceaccount:${namespace}:${name}`, [
    'system:serviceaccounts',
    `system:serviceaccounts:${namespace}`,
    'system:authenticated',
  ]);
  const bindings: (() => Promise<void>)[] = [];
  return {
    operator,
    token,
    async bind(clusterRole, bindingNamespace) {
      const bindingName = `${name}-${clusterRole}`;
      const roleRef = {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: clusterRole,
      };
      let unbind: () => Promise<void>;
      if (bindingNamespace === undefined) {
        await rbac.createClusterRoleBinding({
          body: { metadata: { name: bindingName }, roleRef, subjects: [subject] },
        });
        unbind = async () => {
          await rbac.deleteClusterRoleBinding({ name: bindingName }).catch(() => undefined);
        };
      } else {
        await rbac.createNamespacedRoleBinding({
          namespace: bindingNamespace,
          body: { metadata: { name: bindingName }, roleRef, subjects: [subject] },
        });
        unbind = async () => {
          await rbac
            .deleteNamespacedRoleBinding({ namespace: bindingNamespace, name: bindingName })
            .catch(() => undefined);
        };
      }
      bindings.push(unbind);
      return unbind;
    },
    async delete() {
      for (const unbind of bindings.splice(0)) await unbind();
      await core.deleteNamespacedServiceAccount({ namespace, name }).catch(() => undefined);
    },
  };
}

/** Creates namespaces `names` as `admin`; the returned function deletes them and what is in them. */
export async function createNamespaces(
  admin: KubeConfig,
  names: readonly string[],
): Promise<() => Promise<void>> {
  const core = admin.makeApiClient(CoreV1Api);
  const made: string[] = [];
  const deleteMade = async () => {
    for (const name of made) await core.deleteNamespace({ name }).catch(() => undefined);
  };
  try {
    for (const name of names) {
      await core.createNamespace({ body: { metadata: { name } } });
      made.push(name);
    }
  } catch (error) {
    // The caller gets no delete to run: the namespaces made before the failure would outlive it.
    await deleteMade();
    throw error;
  }
  return deleteMade;
}

/**
 * ClusterRole `name`, which may read nodes: `view` and `edit` have none (nodes are
 * cluster-scoped), and the cluster-wide figures need them. Returns its delete.
 */
export async function createNodeReader(
  admin: KubeConfig,
  name: string,
): Promise<() => Promise<void>> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({
    body: {
      metadata: { name },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] }],
    },
  });
  return async () => {
    await rbac.deleteClusterRole({ name }).catch(() => undefined);
  };
}

/**
 * The filtered-read tests' set-up: the file's BFF with a short review cache (a revocation shows
 * quickly; the tests poll, they do not time it), callers and allocation streams as an operator,
 * and `cleanups` run before the BFF closes (streams, and what the tests pushed).
 */
export function startOperatorTest() {
  const cleanups: (() => Promise<unknown>)[] = [];
  const harness: BffHarness = startBffTest({ accessReviewTtlMs: 1_000 }, cleanups);
  return {
    harness,
    cleanups,
    callerFor: (operator: Operator, signal?: AbortSignal) =>
      operatorCaller(harness.bff.context, operator, signal),
    async watchAllocations(operator: Operator) {
      const watched = await watchAllocationsAs(harness.bff.context, operator);
      cleanups.push(() => watched.stop());
      return watched;
    },
    /**
     * Two teams' namespaces of the file's own (`<prefix>-a`, `<prefix>-b`), a seed workload in
     * each with its allocations recorded, and a ClusterRole that may read nodes; all removed
     * after the file's tests.
     */
    async twoTeams(prefix: string) {
      const admin = harness.adminKubeConfig;
      const [teamA, teamB] = [uniqueName(`${prefix}-a`), uniqueName(`${prefix}-b`)];
      cleanups.push(await createNamespaces(admin, [teamA, teamB]));
      const nodeReader = uniqueName(`mgpu-${prefix}-node-reader`);
      cleanups.push(await createNodeReader(admin, nodeReader));
      for (const namespace of [teamA, teamB])
        await harness.caller.workload.create({
          request: seedRequest(uniqueName(prefix), { namespace }),
          clientRequestId: uniqueName('c'),
          lang: 'en',
        });
      await eventually(() => {
        const namespaces = new Set(
          harness.bff.context.allocations.snapshot().map((record) => record.namespace),
        );
        return namespaces.has(teamA) && namespaces.has(teamB);
      }, 'allocation records in both teams’ namespaces');
      return { teamA, teamB, nodeReader };
    },
  };
}
