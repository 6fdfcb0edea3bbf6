/**
 * Two consoles over upstream kube-apiserver with `--auth kubernetes` (issue 30; run by
 * tools/kube/run-real-suites.sh with vitest.real.config.ts): the twin of replicas.test.ts where
 * sessions carry an operator's own service-account token, the consoles run as the tier's
 * least-privileged console user with only the chart's Role for their Lease, sign-outs Secret and
 * history ConfigMap (charts/mgpu-console/templates/role.yaml) in a namespace of their own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthenticationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { testTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleObjects } from './replicas/console-objects.js';
import { eventually } from './test-support/bff-harness.js';
import {
  acceptingAfter,
  type ConsoleReplicas,
  historyThrough,
  killLeader,
  type ReplicaSettings,
  replicaObjects,
  signIn,
  signOut,
  startConsoleReplicas,
  statusWith,
} from './test-support/console-replicas.js';
import {
  createNamespaces,
  createNodeReader,
  serviceAccountOperator,
} from './test-support/operators.js';

const tier = testTier();
if (tier.kind !== 'real')
  throw new Error('replicas.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh');

const suffix = randomBytes(3).toString('hex');
const instance = `replicas-${suffix}`;
/** The consoles' own namespace, as the chart's release namespace. */
const namespace = `replicas-${suffix}`;
const account = 'operator';
const username = `system:serviceaccount:${namespace}:${account}`;
const nodeReader = `${instance}-nodes`;
const HANDOVER_BOUND_MS = 30_000;
const SIGN_OUT_BOUND_MS = 5_000;

const consoleUser = new KubeConfig();
consoleUser.loadFromFile(tier.kubeconfig);
const admin = new KubeConfig();
admin.loadFromFile(tier.kubeconfig);
if (tier.adminContext) admin.setCurrentContext(tier.adminContext);

let dir = '';
let replicas: ConsoleReplicas | undefined;
/** The operator's service-account token, from the TokenRequest API. */
let token = '';
/** What beforeAll made in the cluster, undone last first. */
const cleanups: (() => Promise<void>)[] = [];

const running = () => {
  if (!replicas) throw new Error('the replicas did not start');
  return replicas;
};

/** The chart's Role (templates/role.yaml) and sign-outs Secret for the console's user, in its namespace. */
async function grantConsoleState(
  rbac: RbacAuthorizationV1Api,
  consoleName: string,
  { lease, revokedSessions, poolHistory }: ConsoleObjects,
) {
  const named = (resources: string[], apiGroup: string, name: string) => ({
    apiGroups: [apiGroup],
    resources,
    resourceNames: [name],
    verbs: ['get', 'update'],
  });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: `${instance}-state` },
      rules: [
        named(['leases'], 'coordination.k8s.io', lease),
        named(['secrets'], '', revokedSessions),
        named(['configmaps'], '', poolHistory),
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
      ],
    },
  });
  // As the chart does (templates/revoked-sessions.yaml): the console may create no Secret.
  await admin.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace,
    body: { metadata: { name: revokedSessions }, type: 'Opaque' },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: `${instance}-state` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${instance}-state` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: consoleName }],
    },
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-replicas-real-'));
  const settings: ReplicaSettings = {
    dir,
    kubeconfig: tier.kubeconfig,
    namespace,
    instance,
    access: ['--auth', 'kubernetes'],
  };
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const self = await consoleUser.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const consoleName = self.status?.userInfo?.username;
  if (!consoleName) throw new Error('the console user has no name');

  cleanups.push(await createNamespaces(admin, [namespace]));
  await grantConsoleState(rbac, consoleName, await replicaObjects(settings));
  // The operator: a service account that may list nodes (the pool history shows them).
  const operator = await serviceAccountOperator(admin, namespace, account);
  cleanups.push(await createNodeReader(admin, nodeReader), () => operator.delete());
  await operator.bind(nodeReader);
  token = operator.token;

  replicas = await startConsoleReplicas(settings);
}, 180_000);

afterAll(async () => {
  await replicas?.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Both replicas' answers to `session.whoami` with `cookie`. */
const onBoth = async (cookie: string) => ({
  a: await statusWith(running().url('a'), 'session.whoami', cookie),
  b: await statusWith(running().url('b'), 'session.whoami', cookie),
});

describe('two console replicas with --auth kubernetes on the real tier', {
  timeout: 180_000,
}, () => {
  it('takes a service account sign-in made through the Service on either replica', async () => {
    const cookie = await signIn(running().proxy.url, token);
    expect(await onBoth(cookie)).toEqual({ a: 200, b: 200 });
    const whoami = await fetch(`${running().url('b')}/trpc/session.whoami`, {
      headers: { cookie },
    });
    const { result } = (await whoami.json()) as { result: { data: { username: string } } };
    expect(result.data.username).toBe(username);
    expect(await onBoth('')).toEqual({ a: 401, b: 401 });
  });

  it('still takes the session after a replica restarts with the same key file', async () => {
    const cookie = await signIn(running().url('a'), token);
    await running().stop('a', 'SIGTERM');
    await running().start('a');
    expect(await onBoth(cookie)).toEqual({ a: 200, b: 200 });
  });

  it('refuses a session signed out on one replica on both within 5 s, and only that one', async () => {
    const leaving = await signIn(running().proxy.url, token);
    const staying = await signIn(running().proxy.url, token);
    expect(await onBoth(leaving)).toEqual({ a: 200, b: 200 });
    expect(await signOut(running().url('b'), leaving)).toBe(200);
    const accepting = await acceptingAfter(running(), 'session.whoami', leaving, SIGN_OUT_BOUND_MS);
    expect(accepting, 'replicas still taking the signed-out cookie after 5 s').toEqual([]);
    expect(await onBoth(staying)).toEqual({ a: 200, b: 200 });
  });

  it('moves the leader Lease and history sampling to the other replica when the leader dies', async () => {
    const cookie = await signIn(running().proxy.url, token);
    const { successor, killedAt } = await killLeader(
      running(),
      admin,
      HANDOVER_BOUND_MS,
      // The follower shows the samples the Lease's holder published: one replica samples.
      (leader) =>
        eventually(
          async () => {
            const shown = await historyThrough(running().url('a'), cookie);
            return shown.times.length > 0 && shown.sampledBy === leader;
          },
          `history samples by the leader ${leader} on the follower`,
          600,
        ),
    );
    // Samples taken after the leader died are the survivor's, and the history says so.
    await eventually(
      async () => {
        const shown = await historyThrough(running().proxy.url, cookie);
        const after = shown.times.filter((at) => at > killedAt);
        return after.length >= 2 && shown.sampledBy === successor;
      },
      `two samples by ${successor} after the leader died`,
      600,
    );
    await running().start('b');
  });
});
